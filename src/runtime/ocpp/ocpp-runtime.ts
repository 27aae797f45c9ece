// Drives every charger bound over OCPP: authenticates chargers in the endpoint's handshake (failures
// counted per client address, like bad API keys), keeps one session per charger, writes what they
// report (batched, like the other runtimes; online/offline at once), answers refreshes from the live
// connection and carries out their commands.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { DeviceRecord } from '../../domain/device.ts';
import { isOcppBinding } from '../../domain/ocpp-binding.ts';
import { unknownIdentityHash, verifyPassword } from '../../domain/ocpp-password.ts';
import type { Clock } from '../../domain/time.ts';
import type { CommandType } from '../../domain/vocabulary.ts';
import type { Logger } from '../../log.ts';
import type { Store } from '../../store/store.ts';
import type { HandshakeVerdict, OcppConnection, OcppEndpoint } from '../../transport/ocpp-endpoint.ts';
import type { AuthFailures } from '../auth-failures.ts';
import { CommandFailure, type CommandExecutor } from '../commands/executor.ts';
import { sessionTable, syncSessions } from '../driven-sync.ts';
import type { HubEvents } from '../events/hub-events.ts';
import { DeviceUnreachableError } from '../live.ts';
import { StateWriter } from '../state-writer.ts';
import { attachHandlers } from './ocpp-handlers.ts';
import { OCPP_COMMANDS, runOcppCommand } from './ocpp-commands.ts';
import { OcppSession } from './ocpp-session.ts';
import { OcppPairing } from './ocpp-pairing.ts';
import type { OcppQuirks } from './quirks.ts';

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
  /** Password checks run one at a time: each costs scrypt's memory, and a gateway has little. */
  private verifying: Promise<unknown> = Promise.resolve();
  /**
   * Passwords that passed scrypt, by charge point id, as an HMAC under a key of this process only
   * (never stored): a reconnection costs a hash, not a scrypt. Tied to the stored hash, so a new
   * password (an import, the configuration file) is checked afresh.
   */
  private readonly verified = new Map<string, { hash: string; digest: Buffer }>();
  private readonly memoKey = randomBytes(32);
  /** Chargers being paired from the pairing page (let in by the password it shows). */
  private readonly pairing: OcppPairing;
  /** Identities just let in for pairing, until their connection arrives, with the password they used. */
  private readonly letInForPairing = new Map<string, Buffer>();

  constructor(private readonly deps: OcppRuntimeDeps) {
    this.settings = { ...DEFAULT_OCPP_SETTINGS, ...deps.settings };
    this.log = deps.log.child({ part: 'ocpp' });
    this.writer = new StateWriter(deps.store.db, deps.store.devices, deps.events);
    this.pairing = new OcppPairing(() => deps.clock.now());
    deps.endpoint.on('connection', (connection: OcppConnection) => this.connected(connection));
    deps.endpoint.on('disconnect', (connection: OcppConnection) => this.disconnected(connection));
  }

  handles(device: DeviceRecord): boolean {
    return isOcppBinding(device.driver);
  }

  start(): void {
    this.sync();
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

  /** Decides an OCPP handshake: a known charge point with its password, from an address not over its failure limit. */
  authenticate(identity: string, password: Buffer | undefined, remoteAddress: string): Promise<HandshakeVerdict> {
    const check = this.verifying.then(async (): Promise<HandshakeVerdict> => {
      const now = this.deps.clock.now();
      if (this.deps.failures.retryAfterSeconds(remoteAddress, now) > 0) {
        return { accept: false, status: 429, reason: 'Too many failed authentication attempts' };
      }
      this.deps.store.sync(); // a charger imported by the CLI a moment ago is known
      const credential = this.deps.store.ocpp.credential(identity);
      // An unknown identity costs what a wrong password costs, and is answered the same.
      const hash = credential?.passwordHash ?? unknownIdentityHash();
      // A charger reconnecting with the password that let it in before is known without scrypt.
      const seen = credential && password !== undefined ? this.verified.get(identity) : undefined;
      if (seen && seen.hash === hash && timingSafeEqual(seen.digest, this.digest(password!))) return { accept: true };
      let matches = await verifyPassword(password ?? Buffer.alloc(0), hash);
      // The OCPP 1.6 security whitepaper makes the AuthorizationKey a hexadecimal text of the
      // password's bytes, and chargers that follow it (Zaptec by default: its configuration key
      // UseAuthorizationKeyWithoutDecoding is false) send the decoded bytes: 16 bytes for the
      // hub's 32 hexadecimal digits. Those bytes, written in hexadecimal again, are the password.
      if (!matches && password !== undefined && password.length >= 8 && password.length <= 20 && !isPrintableAscii(password)) {
        matches = await verifyPassword(password.toString('hex'), hash);
      }
      if (credential && password !== undefined && matches) {
        this.verified.set(identity, { hash, digest: this.digest(password) });
        return { accept: true };
      }
      // A new charger with the password a pairing page shows: let in as a draft until it is added.
      if (!credential && password !== undefined && this.pairing.accepts(password)) {
        this.letInForPairing.set(identity, password);
        return { accept: true };
      }
      this.deps.failures.count(remoteAddress, this.deps.clock.now());
      this.log.info({ chargePointId: identity, remoteAddress, known: credential !== undefined }, 'ocpp: charger refused: unknown charge point id or wrong password');
      return { accept: false, status: 401, reason: 'Unknown charge point or wrong password' };
    });
    this.verifying = check.catch(() => {});
    return check;
  }

  private digest(password: Buffer): Buffer {
    return createHmac('sha256', this.memoKey).update(password).digest();
  }

  supportedCommands(device: DeviceRecord): readonly CommandType[] {
    return this.handles(device) ? OCPP_COMMANDS : [];
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
      const password = this.letInForPairing.get(connection.identity);
      this.letInForPairing.delete(connection.identity);
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
      store: this.deps.store, clock: this.deps.clock, definitions: this.deps.definitions,
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
      this.letInForPairing.delete(connection.identity);
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

function isPrintableAscii(bytes: Buffer): boolean {
  return bytes.every((b) => b >= 0x21 && b <= 0x7e);
}
