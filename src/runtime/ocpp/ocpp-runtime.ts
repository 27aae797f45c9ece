// Drives every charger bound over OCPP: decides the endpoint's handshakes (ocpp-auth.ts), keeps one session per charger, writes what they
// report (batched, like the other runtimes; online/offline at once), answers refreshes from the live
// connection and carries out their commands.
import type { DeviceRecord } from '../../domain/device.ts';
import { isOcppBinding } from '../../domain/ocpp-binding.ts';
import { monotonicMs, type Clock } from '../../domain/time.ts';
import type { CommandType } from '../../domain/vocabulary.ts';
import type { Logger } from '../../log.ts';
import type { Store } from '../../store/store.ts';
import type { HandshakeVerdict, OcppConnection, OcppEndpoint } from '../../transport/ocpp-endpoint.ts';
import type { AuthFailures } from '../auth-failures.ts';
import { CommandFailure, type CommandExecutor, type CommandShape } from '../commands/executor.ts';
import { sessionTable, syncSessions } from '../devices/driven-sync.ts';
import type { HubEvents } from '../events/hub-events.ts';
import { DeviceUnreachableError } from '../devices/live.ts';
import { StateWriter } from '../devices/state-writer.ts';
import { attachHandlers } from './ocpp-handlers.ts';
import { MAX_CURRENT_A, MIN_CURRENT_A, OCPP_COMMANDS, runOcppCommand } from './ocpp-commands.ts';
import { OcppSession } from './ocpp-session.ts';
import { OcppPairing } from './ocpp-pairing.ts';
import { OcppAuthenticator, type OcppAuthStats } from './ocpp-auth.ts';
import type { OcppQuirks } from './definition.ts';
import type { ClockWatch } from '../clock/clock-watch.ts';

export interface OcppRuntimeSettings {
  flushMs: number;
  /** How often devices added by another process (import, CLI) are picked up. */
  resyncMs: number;
  refreshTimeoutMs: number;
}

export const DEFAULT_OCPP_SETTINGS: OcppRuntimeSettings = { flushMs: 1000, resyncMs: 15_000, refreshTimeoutMs: 5000 };

export interface OcppRuntimeDeps {
  store: Store;
  endpoint: OcppEndpoint;
  failures: AuthFailures;
  definitions: readonly OcppQuirks[];
  events: HubEvents;
  clock: Clock;
  log: Logger;
  settings?: Partial<OcppRuntimeSettings>;
  /** Whether the wall clock is set: until then a booting charger is answered Pending. */
  clockWatch?: Pick<ClockWatch, 'trusted'>;
}

export class OcppRuntime implements CommandExecutor {
  readonly name = 'ocpp';
  readonly writer: StateWriter;
  readonly settings: OcppRuntimeSettings;
  /** By device id. */
  private readonly sessions = new Map<string, OcppSession>();
  private readonly byChargePoint = new Map<string, OcppSession>();
  private timers: NodeJS.Timeout[] = [];
  private readonly log: Logger;
  /** Chargers being paired from the pairing page (let in by the password it shows). */
  private readonly pairing: OcppPairing;
  private readonly auth: OcppAuthenticator;
  private readonly clockTrusted = (): boolean => this.deps.clockWatch?.trusted ?? true;

  constructor(private readonly deps: OcppRuntimeDeps) {
    this.settings = { ...DEFAULT_OCPP_SETTINGS, ...deps.settings };
    this.log = deps.log.child({ part: 'ocpp' });
    this.writer = new StateWriter(deps.store.db, deps.store.devices, deps.events, deps.store.storage);
    // The pairing window is a duration: monotonic, so that a step of the wall clock neither closes nor stretches it.
    this.pairing = new OcppPairing(() => monotonicMs(deps.clock));
    this.auth = new OcppAuthenticator({ store: deps.store, failures: deps.failures, log: this.log, pairing: this.pairing });
    deps.endpoint.on('connection', (connection: OcppConnection) => this.connected(connection));
    deps.endpoint.on('disconnect', (connection: OcppConnection) => this.disconnected(connection));
  }

  handles(device: DeviceRecord): boolean {
    return isOcppBinding(device.driver);
  }

  start(): void {
    this.sync();
    // Every charger is offline until it connects to this hub: what the store says of a connection of
    // a previous run (a crash leaves isOnline true) is written over before the API answers.
    this.writer.flush();
    this.timers.push(setInterval(() => this.writer.flush(), this.settings.flushMs));
    this.timers.push(setInterval(() => this.sync(), this.settings.resyncMs));
  }

  async stop(): Promise<void> {
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
    await this.deps.endpoint.stop();
    for (const session of this.sessions.values()) this.writer.reportOnline(session.device.id, false);
    this.writer.flush();
    this.sessions.clear();
    this.byChargePoint.clear();
  }

  /** Decides an OCPP handshake (see OcppAuthenticator). */
  /** What the handshakes' password checks have cost and refused (tests, the bench). */
  get authStats(): Readonly<OcppAuthStats> {
    return this.auth.stats;
  }

  authenticate(identity: string, password: Buffer | undefined, remoteAddress: string): Promise<HandshakeVerdict> {
    return this.auth.authenticate(identity, password, remoteAddress);
  }

  supportedCommands(device: DeviceRecord): readonly CommandType[] {
    return this.handles(device) ? OCPP_COMMANDS : [];
  }

  /** The limits a charger takes (6 to 32 A) and the phases it can charge on (1 to 3), checked before a command is stored. */
  commandShape(device: DeviceRecord, type: CommandType): CommandShape | undefined {
    if (!this.handles(device)) return undefined;
    if (type === 'SET_CHARGING_CURRENT') return { value: { from: 'payload', field: 'current', min: MIN_CURRENT_A, max: MAX_CURRENT_A }, stateField: 'chargeCurrentMax' };
    if (type === 'SET_CHARGING_PHASES') return { value: { from: 'payload', field: 'phases', min: 1, max: 3 }, stateField: 'activePhases' };
    return undefined;
  }

  /** A command can be sent only over a live connection; otherwise it waits (the worker's rule). */
  isReachable(device: DeviceRecord): boolean {
    return this.sessionOf(device)?.isConnected === true;
  }

  async execute(device: DeviceRecord, type: CommandType, payload: unknown, signal: AbortSignal): Promise<void> {
    const session = this.sessionOf(device);
    if (!session) throw new CommandFailure('The charger\'s OCPP binding is not usable.');
    await runOcppCommand(session, type, payload, signal, {
      store: this.deps.store,
      clock: () => this.deps.clock.now(),
      confirmLimit: (s, limitA) => {
        this.writer.reportValues(s.device.id, { ...s.values(), chargeCurrentMax: limitA }, [], this.deps.clock.now());
        this.writer.flush();
      },
    });
  }

  /**
   * A live read: asks the connected charger for its status and meter values (TriggerMessage, where
   * it supports it) and returns what the store then holds; 503 when the charger is not connected.
   */
  async refresh(device: DeviceRecord): Promise<DeviceRecord> {
    const session = this.sessionOf(device);
    if (!session) throw new DeviceUnreachableError(device.id, 'its OCPP binding is not usable');
    const connection = session.connection;
    if (!connection?.isOpen) throw new DeviceUnreachableError(device.id, 'the charger is not connected to the hub');
    const signal = AbortSignal.timeout(this.settings.refreshTimeoutMs);
    const connectorId = session.mainConnector;
    for (const requestedMessage of ['StatusNotification', 'MeterValues'] as const) {
      const type = requestedMessage === 'StatusNotification' ? 'status' : 'meter';
      const heard = session.waitFor((s) => s.type === type, signal);
      heard.catch(() => {});
      try {
        const answer = await connection.call('TriggerMessage', { requestedMessage, connectorId }, signal);
        if (answer['status'] === 'Accepted') await heard;
      } catch {
        // NotImplemented, Rejected or no time left: what the live connection told last stands.
      }
      if (!connection.isOpen) throw new DeviceUnreachableError(device.id, 'the charger disconnected during the refresh');
    }
    this.writer.flush();
    return this.deps.store.devices.get(device.id) ?? device;
  }

  /** Stops driving a deleted charger and closes its connection. */
  remove(deviceId: string): void {
    const session = this.sessions.get(deviceId);
    if (!session) return;
    this.sessions.delete(deviceId);
    if (this.byChargePoint.get(session.chargePointId) === session) this.byChargePoint.delete(session.chargePointId);
    this.writer.forget(deviceId);
    void session.connection?.close('The charger was removed from the hub');
    session.signal({ type: 'closed' });
  }

  /** Picks up chargers added (import, CLI, pairing) and drops deleted ones. */
  sync(): void {
    syncSessions(this.deps.store.devices.driven(), sessionTable(this.sessions, {
      handles: (device) => this.handles(device), open: (device) => this.open(device), remove: (id) => this.remove(id),
    }));
  }

  /** The session of a charge point id (tests, pairing). */
  sessionOfChargePoint(chargePointId: string): OcppSession | undefined {
    return this.byChargePoint.get(chargePointId);
  }

  private sessionOf(device: DeviceRecord): OcppSession | undefined {
    return this.sessions.get(device.id) ?? (this.handles(device) ? this.open(device) : undefined);
  }

  private open(device: DeviceRecord): OcppSession {
    const session = new OcppSession(device, this.log.child({ device: device.id, chargePointId: device.driver!['chargePointId'] }));
    // A charger just paired: what it told while it was a draft is its state.
    const draft = this.pairing.take(session.chargePointId);
    if (draft) {
      for (const [connectorId, status] of draft.connectors) session.connectors.set(connectorId, status);
      session.reading = draft.reading;
      session.quirks = draft.quirks;
      session.model = draft.model;
    }
    this.sessions.set(device.id, session);
    this.byChargePoint.set(session.chargePointId, session);
    this.writer.track(device);
    // A charger that connected before its device was picked up (just imported) is adopted.
    const live = this.deps.endpoint.connection(session.chargePointId);
    if (live?.isOpen) this.adopt(session, live);
    else this.writer.reportOnline(device.id, false);
    return session;
  }

  private connected(connection: OcppConnection): void {
    let session = this.byChargePoint.get(connection.identity);
    if (!session) {
      this.sync(); // its device may have been added by another process since the last look
      session = this.byChargePoint.get(connection.identity);
    }
    if (!session) {
      const password = this.auth.takeLetIn(connection.identity);
      if (password) this.adoptDraft(connection, password);
      else void connection.close('No charger of this hub has this charge point id');
      return;
    }
    this.adopt(session, connection);
  }

  /** A password for the pairing page: new chargers presenting it are let in (PAIRING_WINDOW_MS). */
  expectPairing(password: string): void {
    this.pairing.expect(password);
  }

  /** Resolves with the charger being paired once it has connected with this id and password and booted. */
  awaitPairing(chargePointId: string, password: string, signal: AbortSignal): Promise<OcppSession> {
    this.pairing.expect(password); // the user may have changed the shown password before submitting
    return this.pairing.waitFor(chargePointId, password, signal);
  }

  /** A charger being paired: heard (boot, status) before its device exists. */
  private adoptDraft(connection: OcppConnection, password: Buffer): void {
    const draft: DeviceRecord = {
      id: `pairing:${connection.identity}`, kind: 'charger', userId: '', vendor: '', name: null, model: null, isOnline: true,
      lastUpdatedMs: null, locationId: null, hvacType: null, staticData: {}, state: null,
      driver: { type: 'ocpp', chargePointId: connection.identity }, createdAtMs: 0,
    };
    const session = new OcppSession(draft, this.log.child({ pairing: connection.identity }));
    session.connection = connection;
    this.pairing.add(session, password);
    attachHandlers(session, connection, {
      store: this.deps.store, clock: this.deps.clock, definitions: this.deps.definitions, clockTrusted: this.clockTrusted,
      report: () => {},
      booted: (s) => {
        this.pairing.markBooted(s);
        void this.configure(s);
      },
    });
    session.log.info({ remoteAddress: connection.remoteAddress }, 'ocpp: charger connected for pairing');
  }

  private adopt(session: OcppSession, connection: OcppConnection): void {
    session.connection = connection;
    attachHandlers(session, connection, {
      store: this.deps.store,
      clock: this.deps.clock,
      definitions: this.deps.definitions,
      clockTrusted: this.clockTrusted,
      report: (s) => this.writer.reportValues(s.device.id, { ...s.values() }, [], this.deps.clock.now()),
      booted: (s) => void this.configure(s),
    });
    session.busyConnector = this.deps.store.ocpp.running(session.chargePointId).at(-1)?.connectorId;
    session.log.info({ remoteAddress: connection.remoteAddress }, 'ocpp: charger connected');
    // isOnline follows the connection, and is written at once (decisions §4, online changes).
    this.writer.reportOnline(session.device.id, true);
    this.writer.flush();
  }

  private disconnected(connection: OcppConnection): void {
    const session = this.byChargePoint.get(connection.identity);
    // A connection replaced by a newer one of the same charger says nothing about the charger.
    if (!session || session.connection !== connection) {
      this.auth.takeLetIn(connection.identity);
      return;
    }
    session.connection = undefined;
    session.signal({ type: 'closed' });
    session.log.info('ocpp: charger disconnected');
    this.writer.reportOnline(session.device.id, false);
    this.writer.flush();
  }

  /** After an accepted boot: the configuration its maker's definition asks for. */
  private async configure(session: OcppSession): Promise<void> {
    const connection = session.connection;
    for (const { key, value } of session.quirks.bootConfiguration) {
      if (!connection?.isOpen) return;
      try {
        const answer = await connection.call('ChangeConfiguration', { key, value });
        if (answer['status'] !== 'Accepted') session.log.info({ key, value, status: answer['status'] }, 'ocpp: configuration not taken');
      } catch (err) {
        session.log.info({ key, err: { type: (err as Error).name, message: (err as Error).message } }, 'ocpp: configuration not taken');
      }
    }
  }
}
