// The vehicles the hub reads from their makers' clouds (drivers/cloud/): one session per car (BMW's
// stream, cardata-stream.ts; Volvo's polling, volvo-poller.ts), kept
// in step with the stored devices like the other families' sessions. The makers' cloud APIs open to
// private owners are read-only, so this family carries out no command: a car's charging commands go
// through the charger it is bound to (the command worker), and this executor handles none.
import type { Logger } from 'pino';
import type { DeviceRecord, DriverBinding } from '../../domain/device.ts';
import type { Clock } from '../../domain/time.ts';
import type { Store } from '../../store/store.ts';
import { CommandFailure, type CommandExecutor } from '../commands/executor.ts';
import { sessionTable, syncSessions } from '../driven-sync.ts';
import type { HubEvents } from '../events/hub-events.ts';
import { StateWriter } from '../state-writer.ts';
import { DeviceUnreachableError } from '../live.ts';
import { BMW_CARDATA_ENDPOINTS, type CardataEndpoints } from './cardata-oauth.ts';
import { CardataStream, DEFAULT_CARDATA_STREAM_SETTINGS, type CardataStreamSettings } from './cardata-stream.ts';
import type { CloudSession, CloudStatus } from './cloud-session.ts';
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
  private readonly sessions = new Map<string, CloudSession>();
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
    await Promise.allSettled([...this.sessions.values()].map((s) => s.stop()));
    this.sessions.clear();
    this.writer.flush();
  }

  /** Opens sessions for new cars, closes those of deleted ones, reopens one whose binding changed. */
  sync(): void {
    syncSessions(this.deps.store.devices.driven(), sessionTable(this.sessions, this));
  }

  /** Cars their owner has to see to (a new login, a stream another client holds, a used-up quota), for /health. */
  attention(): string[] {
    const out: string[] = [];
    for (const [id, session] of this.sessions) {
      const status = session.status;
      if (status.state === 'loginDue' || status.state === 'takenOver' || status.state === 'waitingForQuota') out.push(`vehicle ${id}: ${status.reason}`);
    }
    return out;
  }

  status(id: string): CloudStatus | undefined {
    return this.sessions.get(id)?.status;
  }

  open(device: DeviceRecord): void {
    const definition = this.definitions.get(device.driver!.type)!;
    this.writer.track(device);
    const common = {
      device, definition, clock: this.deps.clock, log: this.log.child({ deviceId: device.id }),
      saveBinding: (binding: DriverBinding) => this.deps.store.devices.updateDriver(device.id, binding),
      report: (values: Record<string, unknown>, mapped: readonly string[]) => this.writer.reportValues(device.id, values, mapped, this.deps.clock.now()),
      reportOnline: (isOnline: boolean) => this.writer.reportOnline(device.id, isOnline),
      onStatus: (status: CloudStatus) => this.onStatus?.(device.id, status),
    };
    const session: CloudSession = definition.protocol === 'volvo'
      ? new VolvoPoller({ ...common, endpoints: this.endpoints.volvo, settings: { ...DEFAULT_VOLVO_POLL_SETTINGS, ...this.deps.settings?.volvo } })
      : new CardataStream({ ...common, endpoints: this.endpoints.bmwCardata, settings: { ...DEFAULT_CARDATA_STREAM_SETTINGS, ...this.deps.settings?.stream } });
    this.sessions.set(device.id, session);
    session.start();
  }

  remove(id: string): void {
    void this.sessions.get(id)?.stop();
    this.sessions.delete(id);
    this.writer.forget(id);
  }

  /**
   * A refresh is the car's latest from its maker: nobody can make a car report now (BMW streams what
   * the car sends, Volvo answers its last report). A car whose session does not read (a new login
   * due, the stream another client's, the stream lost, the quota used up) is unreachable.
   */
  refresh(device: DeviceRecord): Promise<DeviceRecord> {
    const status = this.sessions.get(device.id)?.status;
    // 'connecting' is also the hourly renewal of BMW's stream: the car is read as before.
    if (status?.state !== 'streaming' && !(status?.state === 'connecting' && device.isOnline)) {
      const why = status && 'reason' in status ? status.reason : 'the maker\'s cloud has not been reached yet';
      return Promise.reject(new DeviceUnreachableError(device.id, why));
    }
    this.writer.flush();
    return Promise.resolve(this.deps.store.devices.get(device.id) ?? device);
  }

  supportedCommands(): readonly never[] {
    return [];
  }

  isReachable(device: DeviceRecord): boolean {
    return this.sessions.get(device.id)?.status.state === 'streaming';
  }

  execute(device: DeviceRecord): Promise<void> {
    return Promise.reject(new CommandFailure(`${device.vendor}'s cloud API is read-only: no command can be sent to the car through it`));
  }
}
