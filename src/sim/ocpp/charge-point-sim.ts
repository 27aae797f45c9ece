// A charge point speaking OCPP 1.6J to a central system, built on ocpp-rpc's client in strict mode:
// every frame it sends and every answer it gets is validated against the official OCPP 1.6 JSON
// schemas, so a hub that answers anything off-schema fails the tests that use it. It behaves as
// OCPP 1.6 edition 2 describes a charger: it boots, tells its connector's status, samples meter
// values while charging, runs transactions (local or remote start/stop), applies charging profiles,
// answers TriggerMessage, and queues its transaction messages while offline, sending them in order
// when it is back (§3.3 / §4.10: "transaction-related messages" are not lost).
import { RPCClient } from 'ocpp-rpc';

export interface ChargePointSimOptions {
  /** ws(s)://host:port/ocpp (the identity is appended). */
  endpoint: string;
  identity: string;
  /** Text, or the bytes a charger decodes from a hexadecimal AuthorizationKey. */
  password?: string | Buffer;
  vendor?: string;
  model?: string;
  /** The WebSocket subprotocols it offers (default ocpp1.6). */
  protocols?: string[];
  /** Answers it gives, by action (default Accepted everywhere it can). */
  answers?: Partial<Record<'RemoteStartTransaction' | 'RemoteStopTransaction' | 'SetChargingProfile' | 'TriggerMessage' | 'ChangeConfiguration', string>>;
  /** Actions it answers NotImplemented (a charger without smart charging, say). */
  notImplemented?: string[];
  /** The charging profiles it takes (Easee: TxDefaultProfile and ChargePointMaxProfile, Absolute only); others are Rejected. */
  profiles?: { purposes: string[]; kinds: string[] };
  /** The most current it can offer, in A. */
  maxCurrentA?: number;
  /**
   * What its meter values hold: `generic` power (kW), energy (Wh), Current.Offered and per-phase
   * currents; `zaptec` what Zaptec documents ("Supported OCPP 1.6J cloud commands", supported meter
   * value measurements): Power.Active.Import (W), Energy.Active.Import.Register (kWh), Power.Offered
   * (W), Current.Import per phase L1-N, L2-N, L3-N (A); no Current.Offered.
   */
  meter?: 'generic' | 'zaptec';
  /** Extra TLS options (a CA for wss). */
  wsOpts?: Record<string, unknown>;
  /** How long it waits before booting again when held Pending (default: the interval the hub gave). */
  pendingRetryMs?: number;
}

type Status = 'Available' | 'Preparing' | 'Charging' | 'SuspendedEV' | 'SuspendedEVSE' | 'Finishing' | 'Faulted' | 'Unavailable';
type Queued = { action: string; payload: Record<string, unknown> };

export class ChargePointSim {
  client: RPCClient;
  status: Status = 'Available';
  plugged = false;
  energyWh = 10_000;
  transactionId: number | undefined;
  limitA: number;
  /** The phases it charges on (a charging profile's numberPhases; 3 unless told). */
  phases = 3;
  heartbeatIntervalS: number | undefined;
  /** Every BootNotification answer, in order (a charger held Pending boots again until Accepted). */
  readonly boots: { status: string; currentTime: string; interval: number }[] = [];
  readonly configuration = new Map<string, string>();
  /** Every call the central system made, in order. */
  readonly received: { action: string; payload: Record<string, unknown> }[] = [];
  /** Transaction messages waiting for a connection. */
  readonly queue: Queued[] = [];
  /** `silent`: it accepts remote start/stop but does nothing (a charger that hangs). */
  readonly faults = { silent: false };

  constructor(private readonly options: ChargePointSimOptions) {
    this.limitA = options.maxCurrentA ?? 16;
    this.client = this.makeClient();
  }

  private makeClient(): RPCClient {
    const client = new RPCClient({
      endpoint: this.options.endpoint,
      identity: this.options.identity,
      password: this.options.password ?? null,
      protocols: this.options.protocols ?? ['ocpp1.6'],
      strictMode: (this.options.protocols ?? ['ocpp1.6']).includes('ocpp1.6') ? ['ocpp1.6'] : false,
      reconnect: false,
      callTimeoutMs: 10_000,
      wsOpts: this.options.wsOpts ?? {},
    } as never);
    const handle = (action: string, fn: (payload: Record<string, unknown>) => Record<string, unknown> | Promise<Record<string, unknown>>) => {
      client.handle(action, async ({ params }) => {
        const payload = params as Record<string, unknown>;
        this.received.push({ action, payload });
        if (this.options.notImplemented?.includes(action)) throw notImplemented(action);
        return fn(payload);
      });
    };
    handle('RemoteStartTransaction', (p) => {
      const status = this.options.answers?.RemoteStartTransaction ?? (this.transactionId === undefined ? 'Accepted' : 'Rejected');
      if (status === 'Accepted' && !this.faults.silent) setImmediate(() => void this.startTransaction(String(p['idTag'])).catch(() => {}));
      return { status };
    });
    handle('RemoteStopTransaction', (p) => {
      const status = this.options.answers?.RemoteStopTransaction ?? (p['transactionId'] === this.transactionId ? 'Accepted' : 'Rejected');
      if (status === 'Accepted' && !this.faults.silent) setImmediate(() => void this.stopTransaction('Remote').catch(() => {}));
      return { status };
    });
    handle('SetChargingProfile', (p) => {
      const profile = p['csChargingProfiles'] as {
        chargingProfilePurpose: string; chargingProfileKind: string; chargingSchedule: { chargingSchedulePeriod: { limit: number; numberPhases?: number }[] };
      };
      const allowed = !this.options.profiles
        || (this.options.profiles.purposes.includes(profile.chargingProfilePurpose) && this.options.profiles.kinds.includes(profile.chargingProfileKind));
      const status = this.options.answers?.SetChargingProfile ?? (allowed ? 'Accepted' : 'Rejected');
      if (status === 'Accepted') {
        this.limitA = Math.min(this.options.maxCurrentA ?? 16, profile.chargingSchedule.chargingSchedulePeriod[0]!.limit);
        // OCPP 1.6 §7.13: a period without numberPhases means three.
        this.phases = profile.chargingSchedule.chargingSchedulePeriod[0]!.numberPhases ?? 3;
      }
      return { status };
    });
    handle('GetCompositeSchedule', (p) => ({
      status: 'Accepted', connectorId: p['connectorId'],
      chargingSchedule: { chargingRateUnit: 'A', duration: p['duration'], chargingSchedulePeriod: [{ startPeriod: 0, limit: this.limitA, numberPhases: this.phases }] },
    }));
    handle('TriggerMessage', (p) => {
      const status = this.options.answers?.TriggerMessage ?? 'Accepted';
      if (status === 'Accepted') {
        setImmediate(() => {
          if (p['requestedMessage'] === 'StatusNotification') void this.sendStatus(this.status).catch(() => {});
          if (p['requestedMessage'] === 'MeterValues') void this.sendMeterValues('Trigger').catch(() => {});
          if (p['requestedMessage'] === 'Heartbeat') void this.client.call('Heartbeat', {}).catch(() => {});
        });
      }
      return { status };
    });
    handle('ChangeConfiguration', (p) => {
      const status = this.options.answers?.ChangeConfiguration ?? 'Accepted';
      if (status === 'Accepted') this.configuration.set(String(p['key']), String(p['value']));
      return { status };
    });
    return client;
  }

  /** Connects (or reconnects), sends BootNotification and its connector's status, then whatever it queued offline. */
  async connect(): Promise<void> {
    await this.client.connect();
    for (;;) {
      const boot = await this.client.call('BootNotification', {
        chargePointVendor: this.options.vendor ?? 'Generic', chargePointModel: this.options.model ?? 'Wallbox 1',
        chargePointSerialNumber: `SN-${this.options.identity}`, firmwareVersion: '1.0.0',
      }) as { status: string; currentTime: string; interval: number };
      this.boots.push(boot);
      this.heartbeatIntervalS = boot.interval;
      // OCPP 1.6 §4.2: Pending (or Rejected) means boot again after `interval`, sending nothing else.
      if (boot.status === 'Accepted') break;
      await new Promise((resolve) => setTimeout(resolve, this.options.pendingRetryMs ?? boot.interval * 1000));
      if (this.client.state !== 1) return;
    }
    await this.sendStatus(this.status);
    await this.flushQueue();
  }

  /** The network goes: the socket is cut without a closing handshake. */
  drop(): void {
    (this.client as unknown as { _ws?: { terminate(): void } })._ws?.terminate();
  }

  /** A fresh client for the same charger (after drop(), as a real one reconnects). */
  async reconnect(): Promise<void> {
    await this.client.close({ force: true }).catch(() => {});
    this.client = this.makeClient();
    await this.connect();
  }

  async close(): Promise<void> {
    await this.client.close({ force: true }).catch(() => {});
  }

  get isOpen(): boolean {
    return this.client.state === 1;
  }

  async plugIn(): Promise<void> {
    this.plugged = true;
    await this.sendStatus('Preparing');
  }

  /** A transaction the charger starts (local authorisation, or asked by RemoteStartTransaction). */
  async startTransaction(idTag: string): Promise<void> {
    this.plugged = true;
    const answer = await this.send('StartTransaction', { connectorId: 1, idTag, meterStart: this.energyWh, timestamp: new Date().toISOString() });
    if (!answer) return;
    const info = answer as { transactionId: number; idTagInfo: { status: string } };
    this.transactionId = info.transactionId;
    if (info.idTagInfo.status !== 'Accepted') {
      await this.stopTransaction('DeAuthorized');
      return;
    }
    await this.sendStatus('Charging');
    await this.sendMeterValues('Sample.Periodic');
  }

  async stopTransaction(reason: string): Promise<void> {
    if (this.transactionId === undefined) return;
    this.energyWh += 1234;
    const stop = { transactionId: this.transactionId, meterStop: this.energyWh, timestamp: new Date().toISOString(), reason };
    this.transactionId = undefined;
    this.status = 'Finishing';
    await this.send('StopTransaction', stop);
    if (this.isOpen) await this.sendStatus('Finishing');
  }

  async sendStatus(status: Status, errorCode = 'NoError'): Promise<void> {
    this.status = status;
    await this.client.call('StatusNotification', { connectorId: 1, errorCode, status, timestamp: new Date().toISOString() });
  }

  /** What the charger draws now, W: the current it reports on each phase it charges on, at 230 V (none unless charging). */
  powerW(): number {
    return this.status === 'Charging' ? Math.round(this.phases * 230 * Number((this.limitA - 0.3).toFixed(1))) : 0;
  }

  /** Power, energy register, offered current and per-phase currents, as chargers commonly send them (or as Zaptec does). */
  async sendMeterValues(context: string, power = { value: '7.36', unit: 'kW' }): Promise<void> {
    const charging = this.status === 'Charging';
    const phaseA = charging ? (this.limitA - 0.3).toFixed(1) : '0.0';
    /** The current on the n-th phase: none on the phases it does not charge on. */
    const on = (n: number) => (n < this.phases ? phaseA : '0.0');
    const sampledValue = this.options.meter === 'zaptec'
      ? [
        { value: String(this.powerW()), measurand: 'Power.Active.Import', unit: 'W', context },
        { value: (this.energyWh / 1000).toFixed(3), measurand: 'Energy.Active.Import.Register', unit: 'kWh', context },
        { value: String(this.phases * 230 * this.limitA), measurand: 'Power.Offered', unit: 'W', context },
        ...['L1-N', 'L2-N', 'L3-N'].map((phase, n) => ({ value: on(n), measurand: 'Current.Import', unit: 'A', phase, context })),
      ]
      : [
        { value: charging ? power.value : '0', measurand: 'Power.Active.Import', unit: power.unit, context },
        { value: String(this.energyWh), measurand: 'Energy.Active.Import.Register', unit: 'Wh', context },
        { value: String(this.limitA), measurand: 'Current.Offered', unit: 'A', context },
        ...['L1', 'L2', 'L3'].map((phase, n) => ({ value: on(n), measurand: 'Current.Import', unit: 'A', phase, context })),
      ];
    await this.client.call('MeterValues', {
      connectorId: 1,
      ...(this.transactionId !== undefined ? { transactionId: this.transactionId } : {}),
      meterValue: [{ timestamp: new Date().toISOString(), sampledValue }],
    });
  }

  /**
   * A transaction message: sent now when connected, else queued (in order) for the next connection,
   * as OCPP 1.6 §4.10 asks of a charger.
   */
  private async send(action: string, payload: Record<string, unknown>): Promise<unknown> {
    if (!this.isOpen) {
      this.queue.push({ action, payload });
      return undefined;
    }
    return this.client.call(action, payload);
  }

  private async flushQueue(): Promise<void> {
    while (this.queue.length > 0 && this.isOpen) {
      const { action, payload } = this.queue[0]!;
      await this.client.call(action, payload);
      this.queue.shift();
    }
  }
}

function notImplemented(action: string): Error {
  const err = new Error(`${action} is not implemented`) as Error & { rpcErrorCode: string; details: object };
  err.rpcErrorCode = 'NotImplemented';
  err.details = {};
  return err;
}
