// The vehicles the hub reads from their makers' clouds (drivers/cloud/): one session per maker
// account, serving that account's cars (BMW's stream, cardata-stream.ts; Volvo's polling,
// volvo-poller.ts), kept in step with the stored devices like the other families' sessions: a car
// added joins its account's session, a car deleted leaves it, and the last one closes it. The makers'
// cloud APIs open to private owners are read-only, so this family carries out no command: a car's
// charging commands go through the charger it is bound to (the command worker), and this executor
// handles none.
import type { Logger } from 'pino';
import type { DeviceRecord } from '../../domain/device.ts';
import type { Clock } from '../../domain/time.ts';
import type { Store } from '../../store/store.ts';
import { CommandFailure, type CommandExecutor } from '../commands/executor.ts';
import { syncSessions, type SessionTable } from '../devices/driven-sync.ts';
import type { HubEvents } from '../events/hub-events.ts';
import { StateWriter } from '../devices/state-writer.ts';
import { DeviceUnreachableError } from '../devices/live.ts';
import { BMW_CARDATA_ENDPOINTS, type CardataEndpoints } from './cardata-oauth.ts';
import { CardataStream, DEFAULT_CARDATA_STREAM_SETTINGS, type CardataStreamSettings } from './cardata-stream.ts';
import { accountKey, type CloudAccountDeps, type CloudAccountSession, type CloudStatus } from './cloud-session.ts';
import { VOLVO_ENDPOINTS, type VolvoEndpoints } from './volvo-api.ts';
import { DEFAULT_VOLVO_POLL_SETTINGS, VolvoPoller, type VolvoPollSettings } from './volvo-poller.ts';
import type { CloudDefinition } from './definition.ts';

export interface CloudEndpoints {
  bmwCardata: CardataEndpoints;
  volvo: VolvoEndpoints;
}

export const DEFAULT_CLOUD_ENDPOINTS: CloudEndpoints = { bmwCardata: BMW_CARDATA_ENDPOINTS, volvo: VOLVO_ENDPOINTS };

export interface CloudRuntimeDeps {
  store: Store;
  definitions: readonly CloudDefinition[];
  endpoints?: Partial<CloudEndpoints>;
  events?: HubEvents;
  clock: Clock;
  log: Logger;
  settings?: { resyncMs?: number; flushMs?: number; stream?: Partial<CardataStreamSettings>; volvo?: Partial<VolvoPollSettings> };
}

export class CloudRuntime implements CommandExecutor {
  readonly name = 'cloud';
  readonly writer: StateWriter;
  /** The sessions by account (cloud-session.ts accountKey), and each car's account. */
  private readonly accounts = new Map<string, CloudAccountSession>();
  private readonly accountOf = new Map<string, string>();
  private readonly table: SessionTable;
  private readonly definitions: Map<string, CloudDefinition>;
  private readonly endpoints: CloudEndpoints;
  private readonly log: Logger;
  private timers: NodeJS.Timeout[] = [];
  /** Every status change of every car's stream (tests). */
  onStatus: ((deviceId: string, status: CloudStatus) => void) | undefined;

  constructor(private readonly deps: CloudRuntimeDeps) {
    this.definitions = new Map(deps.definitions.map((d) => [d.type, d]));
    this.endpoints = { ...DEFAULT_CLOUD_ENDPOINTS, ...deps.endpoints };
    this.log = deps.log.child({ part: 'cloud' });
    this.writer = new StateWriter(deps.store.db, deps.store.devices, deps.events, deps.store.storage);
    this.table = {
      handles: (device) => this.handles(device),
      bindingOf: (id) => this.session(id)?.bindingOf(id),
      ids: () => this.accountOf.keys(),
      open: (device) => this.open(device),
      remove: (id) => this.remove(id),
    };
  }

  handles(device: DeviceRecord): boolean {
    return device.driver !== null && this.definitions.has(device.driver.type);
  }

  start(): void {
    this.sync();
    this.timers.push(setInterval(() => this.sync(), this.deps.settings?.resyncMs ?? 15_000));
    this.timers.push(setInterval(() => this.writer.flush(), this.deps.settings?.flushMs ?? 1000));
  }

  async stop(): Promise<void> {
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
    await Promise.allSettled([...this.accounts.values()].map((s) => s.stop()));
    this.accounts.clear();
    this.accountOf.clear();
    this.writer.flush();
  }

  /**
   * Adds new cars to their accounts' sessions, takes deleted ones out (closing a session with no car
   * left), and adds a car whose binding changed again (a newer login starts its account's session over).
   */
  sync(): void {
    syncSessions(this.deps.store.devices.driven(), this.table);
  }

  /** Cars their owner has to see to (a new login, a stream another client holds, a used-up quota), for /health. */
  attention(): string[] {
    const out: string[] = [];
    for (const id of this.accountOf.keys()) {
      const status = this.status(id);
      if (!status) continue;
      if (status.state === 'loginDue' || status.state === 'takenOver' || status.state === 'waitingForQuota') out.push(`vehicle ${id}: ${status.reason}`);
    }
    return out;
  }

  status(id: string): CloudStatus | undefined {
    return this.session(id)?.status(id);
  }

  /**
   * Why the car is not read, in words its owner can act on (a new login due, the stream another
   * client's, the quota used up, the maker not answering), for the household page and refreshes.
   */
  offlineReason(id: string): string | undefined {
    const status = this.status(id);
    return status && 'reason' in status ? status.reason : undefined;
  }

  private session(id: string): CloudAccountSession | undefined {
    const key = this.accountOf.get(id);
    return key === undefined ? undefined : this.accounts.get(key);
  }

  /** A car into its account's session, which is opened for the account's first car. */
  open(device: DeviceRecord): void {
    const definition = this.definitions.get(device.driver!.type)!;
    this.writer.track(device);
    const key = accountKey(definition, device.driver!);
    this.accountOf.set(device.id, key);
    const session = this.accounts.get(key);
    if (session) return session.add(device);
    const common: CloudAccountDeps = {
      definition, clock: this.deps.clock, log: this.log.child({ account: definition.type }),
      saveBindings: (bindings) => this.deps.store.updateDrivers(bindings),
      report: (id, values, mapped) => this.writer.reportValues(id, values, mapped, this.deps.clock.now()),
      reportOnline: (id, isOnline) => this.writer.reportOnline(id, isOnline),
      onStatus: (id, status) => this.onStatus?.(id, status),
    };
    const opened: CloudAccountSession = definition.protocol === 'volvo'
      ? new VolvoPoller({ ...common, endpoints: this.endpoints.volvo, settings: { ...DEFAULT_VOLVO_POLL_SETTINGS, ...this.deps.settings?.volvo } })
      : new CardataStream({ ...common, endpoints: this.endpoints.bmwCardata, settings: { ...DEFAULT_CARDATA_STREAM_SETTINGS, ...this.deps.settings?.stream } });
    this.accounts.set(key, opened);
    opened.add(device);
    opened.start();
  }

  /** A car out of its account's session; the session closes with its last car. */
  remove(id: string): void {
    const key = this.accountOf.get(id);
    this.accountOf.delete(id);
    this.writer.forget(id);
    const session = key === undefined ? undefined : this.accounts.get(key);
    if (!session) return;
    session.remove(id);
    if (session.size > 0) return;
    this.accounts.delete(key!);
    void session.stop();
  }

  /**
   * A refresh is the car's latest from its maker. Where the maker answers a read at any time (Volvo's
   * API), it is read now, within the application's call quota; a spent quota, a new login due or a
   * car the maker does not answer for is unreachable, with that reason. BMW's stream brings what the
   * car sends and nobody can make a car report now: its refresh is the stream's latest, and a car
   * whose stream does not read (a new login due, the stream another client's, the stream lost) is
   * unreachable.
   */
  async refresh(device: DeviceRecord): Promise<DeviceRecord> {
    const session = this.session(device.id);
    if (session?.readNow) {
      try {
        await session.readNow(device.id);
      } catch (err) {
        throw new DeviceUnreachableError(device.id, (err as Error).message);
      }
      this.writer.flush();
      return this.deps.store.devices.get(device.id) ?? device;
    }
    const status = this.status(device.id);
    // 'connecting' is also the hourly renewal of BMW's stream: the car is read as before.
    if (status?.state !== 'streaming' && !(status?.state === 'connecting' && device.isOnline)) {
      const why = status && 'reason' in status ? status.reason : 'the maker\'s cloud has not been reached yet';
      throw new DeviceUnreachableError(device.id, why);
    }
    this.writer.flush();
    return this.deps.store.devices.get(device.id) ?? device;
  }

  supportedCommands(): readonly never[] {
    return [];
  }

  isReachable(device: DeviceRecord): boolean {
    return this.status(device.id)?.state === 'streaming';
  }

  execute(device: DeviceRecord): Promise<void> {
    return Promise.reject(new CommandFailure(`${device.vendor}'s cloud API is read-only: no command can be sent to the car through it`));
  }
}
