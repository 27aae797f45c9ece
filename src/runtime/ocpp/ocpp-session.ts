// One OCPP charger as the hub knows it: its device, its live connection (if any), the status of
// each connector and its latest meter reading, and the signals that command confirmations and
// refreshes wait on (a status, a meter reading, a transaction that starts or stops).
import { EventEmitter } from 'node:events';
import type { DeviceRecord } from '../../domain/device.ts';
import { ocppSettings, type OcppSettings } from '../../domain/ocpp-binding.ts';
import type { Logger } from '../../log.ts';
import type { OcppConnection } from '../../transport/ocpp-endpoint.ts';
import { chargerValues, valuesOfReading, type ChargerValues, type ConnectorStatus, type MeterReading } from './charger-state.ts';
import { GENERIC_OCPP_QUIRKS, type OcppQuirks } from './definition.ts';

/** What a session tells those waiting on it. */
export type SessionSignal =
  | { type: 'status'; connectorId: number }
  | { type: 'meter'; reading: MeterReading }
  | { type: 'start'; transactionId: number; connectorId: number }
  | { type: 'stop'; transactionId: number }
  | { type: 'closed' };

export class OcppSession {
  readonly settings: OcppSettings;
  connection: OcppConnection | undefined;
  quirks: OcppQuirks = GENERIC_OCPP_QUIRKS;
  readonly connectors = new Map<number, ConnectorStatus>();
  /** The latest meter reading, merged across messages (a charger may report measurands apart). */
  reading: MeterReading = {};
  /** The model its BootNotification named. */
  model: string | undefined;
  /** The connector of the running transaction, when one runs. */
  busyConnector: number | undefined;
  private readonly signals = new EventEmitter();

  constructor(readonly device: DeviceRecord, readonly log: Logger) {
    this.settings = ocppSettings(device.driver!);
    this.signals.setMaxListeners(50);
  }

  get chargePointId(): string {
    return this.settings.chargePointId;
  }

  get isConnected(): boolean {
    return this.connection?.isOpen === true;
  }

  signal(signal: SessionSignal): void {
    this.signals.emit('signal', signal);
  }

  /**
   * Resolves with the first signal that matches; rejects when `signal` aborts or the connection
   * closes first. Call it before sending what the signal answers, so that no answer is missed.
   */
  waitFor<T extends SessionSignal>(match: (s: SessionSignal) => s is T, abort: AbortSignal): Promise<T>;
  waitFor(match: (s: SessionSignal) => boolean, abort: AbortSignal): Promise<SessionSignal>;
  waitFor(match: (s: SessionSignal) => boolean, abort: AbortSignal): Promise<SessionSignal> {
    return new Promise((resolve, reject) => {
      const finish = (fn: () => void) => {
        this.signals.off('signal', onSignal);
        abort.removeEventListener('abort', onAbort);
        fn();
      };
      const onSignal = (s: SessionSignal) => {
        if (s.type === 'closed') finish(() => reject(new Error('the charger disconnected')));
        else if (match(s)) finish(() => resolve(s));
      };
      const onAbort = () => finish(() => reject(abort.reason));
      if (abort.aborted) {
        reject(abort.reason);
        return;
      }
      this.signals.on('signal', onSignal);
      abort.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** The API's chargeState values as the charger last told them. */
  values(): ChargerValues {
    const values: ChargerValues = { ...valuesOfReading(this.reading), ...chargerValues(this.connectors, this.busyConnector, this.quirks.faultOnErrorCode) };
    // Power and phases are those of a charge in progress; a meter reading outlives the charge. Both
    // are told as 0 even when this session has no reading yet: after a restart the store still holds
    // the power of the last charge, and a status outside CHARGING must end it (docs/drivers-ocpp.md).
    if (values.chargingState !== undefined && values.chargingState !== 'CHARGING') {
      values.chargeRate = 0;
      values.activePhases = 0;
    }
    return values;
  }

  /** The connector the hub acts on: the running transaction's, else the definition's. */
  get mainConnector(): number {
    return this.busyConnector ?? this.quirks.connectorId;
  }
}
