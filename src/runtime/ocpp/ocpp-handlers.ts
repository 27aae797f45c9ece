// What the hub answers each message a charger sends (OCPP 1.6 edition 2, §4 "Operations initiated
// by Charge Point"). Every payload has been validated against the official schema before it gets
// here (ocpp-rpc strict mode); an action without a handler is answered NotImplemented.
import { stampedStaticData } from '../../domain/device.ts';
import type { Clock } from '../../domain/time.ts';
import type { Store } from '../../store/store.ts';
import { OcppCallError, type OcppConnection } from '../../transport/ocpp-endpoint.ts';
import { readMeterValues, type SampledValue } from './charger-state.ts';
import type { OcppSession } from './ocpp-session.ts';
import { quirksFor, type OcppQuirks } from './definition.ts';

/** The idTag the hub starts transactions with (RemoteStartTransaction); it is always accepted. */
export const HUB_ID_TAG = 'home-energy-hub';

export interface HandlerContext {
  store: Store;
  clock: Clock;
  definitions: readonly OcppQuirks[];
  /** The session's values changed: write them (batched). */
  report(session: OcppSession): void;
  /** The charger booted and was accepted: configure it. */
  booted(session: OcppSession): void;
  /**
   * Whether the hub's wall clock is set (ClockWatch.trusted). Until it is, a booting charger is
   * answered Pending: it would take the hub's currentTime as its own (1970 on a fresh image).
   */
  clockTrusted?: () => boolean;
}

/** How long a charger held Pending waits before it sends BootNotification again (s). */
export const PENDING_RETRY_S = 30;

export function attachHandlers(session: OcppSession, connection: OcppConnection, ctx: HandlerContext): void {
  const now = () => new Date(ctx.clock.now()).toISOString();

  connection.handle('BootNotification', (p) => {
    const vendor = String(p['chargePointVendor']);
    session.quirks = quirksFor(ctx.definitions, vendor);
    session.log.info({ chargePointVendor: vendor, model: p['chargePointModel'], serial: p['chargePointSerialNumber'],
      firmware: p['firmwareVersion'], quirks: session.quirks.name }, 'ocpp: charger booted');
    session.model = String(p['chargePointModel']);
    if (ctx.clockTrusted && !ctx.clockTrusted()) {
      // OCPP 1.6 §4.2: Pending leaves the charger to boot again after `interval`; its currentTime is
      // required by the schema, and the charger is told not to take it (the clock is not set yet).
      // Nothing is stored meanwhile: the model and the boot wait for a time that can be stored.
      session.log.info({ retryS: PENDING_RETRY_S }, 'ocpp: charger booted before the hub\'s clock was set; answered Pending');
      return { status: 'Pending', currentTime: now(), interval: PENDING_RETRY_S };
    }
    saveModel(ctx, session, session.model);
    setImmediate(() => ctx.booted(session)); // after the answer is on its way: the charger configures once accepted
    return { status: 'Accepted', currentTime: now(), interval: session.quirks.heartbeatIntervalS };
  });

  connection.handle('Heartbeat', () => ({ currentTime: now() }));

  connection.handle('StatusNotification', (p) => {
    const connectorId = Number(p['connectorId']);
    session.connectors.set(connectorId, { status: String(p['status']), errorCode: String(p['errorCode']) });
    if (p['errorCode'] !== 'NoError') {
      session.log.info({ connectorId, status: p['status'], errorCode: p['errorCode'], vendorErrorCode: p['vendorErrorCode'], info: p['info'] }, 'ocpp: charger reports an error');
    }
    ctx.report(session);
    session.signal({ type: 'status', connectorId });
    return {};
  });

  connection.handle('MeterValues', (p) => {
    const reading = readMeterValues(p['meterValue'] as { timestamp: string; sampledValue: SampledValue[] }[]);
    session.reading = { ...session.reading, ...reading };
    ctx.report(session);
    session.signal({ type: 'meter', reading });
    return {};
  });

  connection.handle('Authorize', (p) => ({ idTagInfo: { status: idTagStatus(session, String(p['idTag'])) } }));

  connection.handle('StartTransaction', (p) => {
    const idTag = String(p['idTag']);
    const connectorId = Number(p['connectorId']);
    const { transaction, isNew } = stored(ctx, () => ctx.store.ocpp.startTransaction({
      chargePointId: session.chargePointId, deviceId: session.device.id, connectorId, idTag,
      meterStartWh: Number(p['meterStart']), startedAtMs: Date.parse(String(p['timestamp'])),
    }, ctx.clock.now()));
    const status = idTagStatus(session, idTag);
    if (status === 'Accepted') session.busyConnector = connectorId;
    session.log.info({ transactionId: transaction.id, connectorId, again: !isNew, accepted: status === 'Accepted' }, 'ocpp: transaction started');
    ctx.report(session);
    if (isNew) session.signal({ type: 'start', transactionId: transaction.id, connectorId });
    return { transactionId: transaction.id, idTagInfo: { status } };
  });

  connection.handle('StopTransaction', (p) => {
    const transactionId = Number(p['transactionId']);
    // Taken once: a StopTransaction sent again (its answer was lost, or it was queued while the hub
    // was away and the hub had taken it before) finds the transaction stopped and changes nothing.
    const taken = stored(ctx, () => ctx.store.ocpp.stopTransaction(session.chargePointId, transactionId, Number(p['meterStop']),
      Date.parse(String(p['timestamp'])), String(p['reason'] ?? 'Local')));
    if (taken) {
      const meterStopWh = Number(p['meterStop']);
      session.reading = { ...session.reading, energyWh: meterStopWh };
      session.log.info({ transactionId, reason: p['reason'] ?? 'Local', meterStopWh }, 'ocpp: transaction stopped');
    } else {
      session.log.info({ transactionId }, 'ocpp: StopTransaction for a transaction that is not running (taken before, or unknown); acknowledged');
    }
    const running = ctx.store.ocpp.running(session.chargePointId);
    session.busyConnector = running.at(-1)?.connectorId;
    ctx.report(session);
    if (taken) session.signal({ type: 'stop', transactionId });
    // idTagInfo only when the charger named an idTag (§6.47).
    return p['idTag'] === undefined ? {} : { idTagInfo: { status: idTagStatus(session, String(p['idTag'])) } };
  });

  // Vendor extensions the hub does not know: answered as the standard says (§4.3), never an error.
  connection.handle('DataTransfer', (p) => {
    session.log.debug({ vendorId: p['vendorId'], messageId: p['messageId'] }, 'ocpp: DataTransfer from charger');
    return { status: 'UnknownVendorId' };
  });
  connection.handle('FirmwareStatusNotification', () => ({}));
  connection.handle('DiagnosticsStatusNotification', () => ({}));
}

/** Accepted for the hub's own tag, a tag the binding lists, or any tag with free charging. */
export function idTagStatus(session: OcppSession, idTag: string): 'Accepted' | 'Invalid' {
  const { idTags, freeCharging } = session.settings;
  if (freeCharging || idTag === HUB_ID_TAG || idTags.includes(idTag)) return 'Accepted';
  return 'Invalid';
}

/**
 * BootNotification fills the model (decisions §4); nothing is written when it is the same. A card
 * that takes no writes does not refuse the boot (the charger would be out of reach until it retried):
 * the model is stored at a later boot.
 */
function saveModel(ctx: HandlerContext, session: OcppSession, model: string): void {
  const device = ctx.store.devices.get(session.device.id);
  if (!device || device.model === model) return;
  const next = { ...device, model };
  try {
    ctx.store.devices.save([{ ...next, staticData: stampedStaticData(next, device, ctx.clock.now()) }]);
  } catch (err) {
    if (!ctx.store.storage.report(err)) throw err;
  }
}

/**
 * A transaction is written before the charger is answered: while the card takes no writes the
 * message is refused (CALLERROR), and the charger sends it again later, as OCPP asks of transaction
 * messages (§4.8). Logged once by the storage, not per message.
 */
function stored<T>(ctx: HandlerContext, write: () => T): T {
  try {
    return ctx.store.storage.write(write);
  } catch (err) {
    if (!ctx.store.storage.report(err)) throw err;
    throw new OcppCallError('InternalError', `The central system cannot store this now (storage ${ctx.store.storage.faultKind ?? 'failing'}); send it again later`);
  }
}
