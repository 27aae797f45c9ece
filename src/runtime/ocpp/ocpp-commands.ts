// Commands carried out through an OCPP charger (OCPP 1.6 edition 2, §5 "Operations initiated by
// Central System"), each EXECUTED only once the charger accepted it and its state shows it:
// - CHARGING_STOP → RemoteStopTransaction of the running transaction, confirmed by its StopTransaction;
// - CHARGING_START → RemoteStartTransaction with the hub's idTag, confirmed by a StartTransaction;
// - SET_CHARGING_CURRENT → SetChargingProfile (a TxProfile for the running transaction, else a
//   TxDefaultProfile; limit in A), confirmed by GetCompositeSchedule showing the limit or, for a
//   charger without it, by the offered current it reports next;
// - SET_CHARGING_PHASES → the same profile with the limit in force and the period's numberPhases
//   (OCPP 1.6 §7.13, ChargingSchedulePeriod), confirmed by GetCompositeSchedule showing that number
//   or, for a charger that does not tell, by the phases its meter values show current on.
// A Rejected or NotSupported answer, or a CALLERROR, fails the command with the charger's words.
import type { CommandType } from '../../domain/vocabulary.ts';
import type { Store } from '../../store/store.ts';
import type { OcppTransaction } from '../../store/ocpp.ts';
import type { OcppQuirks } from './definition.ts';
import { OcppRemoteError } from '../../transport/ocpp-endpoint.ts';
import { abortedFailure, CommandFailure } from '../commands/executor.ts';
import { HUB_ID_TAG } from './ocpp-handlers.ts';
import type { OcppSession, SessionSignal } from './ocpp-session.ts';

export const OCPP_COMMANDS: readonly CommandType[] = ['CHARGING_START', 'CHARGING_STOP', 'SET_CHARGING_CURRENT', 'SET_CHARGING_PHASES'];

/** The hub's own charging profile id: a new limit replaces the previous one (same id, §3.13.2). */
export const HUB_PROFILE_ID = 4242;
/** Limits a charger takes, in A: 6 A is IEC 61851's least, 32 A the most of a household wallbox. */
export const MIN_CURRENT_A = 6;
export const MAX_CURRENT_A = 32;

export interface CommandContext {
  store: Store;
  clock(): number;
  /** Writes what the hub now knows the charger does (the limit it confirmed). */
  confirmLimit(session: OcppSession, limitA: number): void;
}

export async function runOcppCommand(session: OcppSession, type: CommandType, payload: unknown, signal: AbortSignal, ctx: CommandContext): Promise<void> {
  switch (type) {
    case 'CHARGING_STOP':
      return stopCharging(session, signal, ctx);
    case 'CHARGING_START':
      return startCharging(session, signal, ctx);
    case 'SET_CHARGING_CURRENT':
      return setCurrent(session, payload, signal, ctx);
    case 'SET_CHARGING_PHASES':
      return setPhases(session, payload, signal, ctx);
    default:
      throw new CommandFailure(`${type} is not supported by an OCPP charger; it supports ${OCPP_COMMANDS.join(', ')}.`);
  }
}

async function stopCharging(session: OcppSession, signal: AbortSignal, ctx: CommandContext): Promise<void> {
  const running = ctx.store.ocpp.running(session.chargePointId).at(-1);
  if (!running) {
    // Nothing to stop is where the command asks the charger to be, unless it charges outside any
    // transaction the hub knows (one started under another central system).
    if (session.values().chargingState === 'CHARGING') {
      throw new CommandFailure('The charger reports that it is charging, but in no transaction the hub knows of, so the hub cannot stop it remotely.');
    }
    return;
  }
  const stopped = session.waitFor((s): s is Extract<SessionSignal, { type: 'stop' }> => s.type === 'stop' && s.transactionId === running.id, signal);
  stopped.catch(() => {}); // observed below; a refusal must not leave it unhandled
  await expectAccepted(session, 'RemoteStopTransaction', { transactionId: running.id }, signal);
  await confirmed(stopped, signal, 'The charger accepted RemoteStopTransaction but did not stop the transaction.');
}

async function startCharging(session: OcppSession, signal: AbortSignal, ctx: CommandContext): Promise<void> {
  if (ctx.store.ocpp.running(session.chargePointId).length > 0) return; // a transaction runs already
  const connectorId = session.mainConnector;
  const started = session.waitFor((s) => s.type === 'start' && s.connectorId === connectorId, signal);
  started.catch(() => {});
  await expectAccepted(session, 'RemoteStartTransaction', { connectorId, idTag: HUB_ID_TAG }, signal);
  await confirmed(started, signal, 'The charger accepted RemoteStartTransaction but started no transaction (is a vehicle plugged in?).');
}

async function setCurrent(session: OcppSession, payload: unknown, signal: AbortSignal, ctx: CommandContext): Promise<void> {
  const raw = (payload as { current?: unknown } | undefined)?.current;
  if (typeof raw !== 'number' || !Number.isFinite(raw)) throw new CommandFailure('SET_CHARGING_CURRENT needs a number in "current" (A).');
  if (raw < MIN_CURRENT_A || raw > MAX_CURRENT_A) throw new CommandFailure(`SET_CHARGING_CURRENT: current ${raw} is outside what the charger accepts (${MIN_CURRENT_A} to ${MAX_CURRENT_A} A).`);
  const limit = Math.round(raw * 10) / 10; // the schema's multipleOf 0.1
  const running = ctx.store.ocpp.running(session.chargePointId).at(-1);
  const { quirks } = session;
  if (quirks.sparesProfileWrites && (await scheduledLimit(session, signal)) === limit) {
    ctx.confirmLimit(session, limit);
    return;
  }
  await expectAccepted(session, 'SetChargingProfile', chargingProfileRequest(quirks, limit, running, ctx.clock()), signal);
  await confirmLimit(session, limit, running !== undefined, signal);
  ctx.confirmLimit(session, limit);
}

/**
 * The phases are part of a charging profile's period, beside its limit: the limit in force (the one
 * the hub last confirmed, else the charger's schedule, else the most a household wallbox takes) is
 * sent again with the new number of phases.
 */
async function setPhases(session: OcppSession, payload: unknown, signal: AbortSignal, ctx: CommandContext): Promise<void> {
  const phases = (payload as { phases?: unknown } | undefined)?.phases;
  if (phases !== 1 && phases !== 2 && phases !== 3) throw new CommandFailure('SET_CHARGING_PHASES needs 1, 2 or 3 in "phases".');
  const running = ctx.store.ocpp.running(session.chargePointId).at(-1);
  const confirmedLimit = session.values().chargeCurrentMax;
  const limit = typeof confirmedLimit === 'number' ? confirmedLimit : (await scheduledLimit(session, signal)) ?? MAX_CURRENT_A;
  await expectAccepted(session, 'SetChargingProfile', chargingProfileRequest(session.quirks, limit, running, ctx.clock(), phases), signal);
  const scheduled = await scheduledPhases(session, signal);
  if (scheduled !== undefined) {
    if (scheduled === phases) return;
    throw new CommandFailure(`The charger accepted charging on ${phases} phase(s), but its schedule still says ${scheduled}.`);
  }
  if (running === undefined) return; // nothing else to read: taken at its word
  const shown = session.waitFor((s) => s.type === 'meter' && s.reading.activePhases === phases, signal);
  shown.catch(() => {});
  await call(session, 'TriggerMessage', { requestedMessage: 'MeterValues', connectorId: session.mainConnector }, signal).catch(() => {});
  await confirmed(shown, signal, `The charger accepted charging on ${phases} phase(s) but its meter values do not show it.`);
}

/** SetChargingProfile.req for a limit in A (and a number of phases), in the form the charger's definition asks for. */
export function chargingProfileRequest(
  quirks: OcppQuirks, limit: number, running: OcppTransaction | undefined, nowMs: number, numberPhases?: number,
): Record<string, unknown> {
  const period = numberPhases === undefined ? { startPeriod: 0, limit } : { startPeriod: 0, limit, numberPhases };
  const chargingSchedule: Record<string, unknown> = { chargingRateUnit: 'A', chargingSchedulePeriod: [period] };
  // An Absolute schedule needs its start; a second ago, so that it is in force at once.
  if (quirks.scheduleKind === 'Absolute') chargingSchedule['startSchedule'] = new Date(Math.floor(nowMs / 1000) * 1000 - 1000).toISOString().replace('.000Z', 'Z');
  const profile = { chargingProfileId: HUB_PROFILE_ID, stackLevel: 0, chargingProfileKind: quirks.scheduleKind, chargingSchedule };
  if (quirks.currentLimitProfile === 'max') return { connectorId: 0, csChargingProfiles: { ...profile, chargingProfilePurpose: 'ChargePointMaxProfile' } };
  if (quirks.currentLimitProfile === 'tx' && running) {
    return { connectorId: running.connectorId, csChargingProfiles: { ...profile, transactionId: running.id, chargingProfilePurpose: 'TxProfile' } };
  }
  return { connectorId: 0, csChargingProfiles: { ...profile, chargingProfilePurpose: 'TxDefaultProfile' } };
}

/** The first period of the charger's composite schedule, or undefined when it cannot tell. */
async function scheduledPeriod(session: OcppSession, signal: AbortSignal): Promise<{ limit: number; numberPhases?: number } | undefined> {
  try {
    const answer = await call(session, 'GetCompositeSchedule', { connectorId: session.mainConnector, duration: 60, chargingRateUnit: 'A' }, signal);
    const periods = (answer['chargingSchedule'] as { chargingSchedulePeriod?: { limit: number; numberPhases?: number }[] } | undefined)?.chargingSchedulePeriod;
    return answer['status'] === 'Accepted' ? periods?.[0] : undefined;
  } catch (err) {
    if (signal.aborted || !session.isConnected) throw err;
    return undefined; // NotImplemented/NotSupported
  }
}

/** The limit at the start of the charger's composite schedule, or undefined when it cannot tell. */
async function scheduledLimit(session: OcppSession, signal: AbortSignal): Promise<number | undefined> {
  return (await scheduledPeriod(session, signal))?.limit;
}

/** The phases at the start of the charger's composite schedule, or undefined when it does not say. */
async function scheduledPhases(session: OcppSession, signal: AbortSignal): Promise<number | undefined> {
  return (await scheduledPeriod(session, signal))?.numberPhases;
}

/**
 * The limit is in force: the composite schedule the charger computes shows it (or less, under a
 * lower limit of the installation's); a charger that cannot tell its schedule shows it in the
 * offered current of its next meter reading while it charges. One that can do neither and is not
 * charging is taken at its word (its Accepted): there is nothing else to read.
 */
async function confirmLimit(session: OcppSession, limit: number, charging: boolean, signal: AbortSignal): Promise<void> {
  const scheduled = await scheduledLimit(session, signal);
  if (scheduled !== undefined) {
    if (scheduled <= limit + 0.05) return;
    throw new CommandFailure(`The charger accepted the limit of ${limit} A, but its schedule still allows ${scheduled} A.`);
  }
  const connectorId = session.mainConnector;
  if (!charging) return;
  const offered = session.waitFor((s) => s.type === 'meter' && s.reading.offeredA !== undefined && s.reading.offeredA <= limit + 0.5, signal);
  offered.catch(() => {});
  await call(session, 'TriggerMessage', { requestedMessage: 'MeterValues', connectorId }, signal).catch(() => {});
  await confirmed(offered, signal, `The charger accepted the limit of ${limit} A but does not show it in its offered current.`);
}

/** Calls an action whose answer has a `status`; anything but Accepted fails the command with the charger's answer. */
async function expectAccepted(session: OcppSession, action: string, request: Record<string, unknown>, signal: AbortSignal): Promise<void> {
  const answer = await call(session, action, request, signal);
  if (answer['status'] !== 'Accepted') throw new CommandFailure(`The charger answered ${action} with ${String(answer['status'])}.`);
}

async function call(session: OcppSession, action: string, request: Record<string, unknown>, signal: AbortSignal): Promise<Record<string, unknown>> {
  const connection = session.connection;
  if (!connection?.isOpen) throw new CommandFailure('The charger is not connected to the hub.');
  if (signal.aborted) throw abortedFailure(signal, 'The command was cancelled before it was sent.');
  try {
    return await connection.call(action, request, signal);
  } catch (err) {
    if (signal.aborted) throw abortedFailure(signal, 'The charger did not answer in time.');
    if (err instanceof OcppRemoteError) throw new CommandFailure(`The charger answered ${action} with ${err.code}${err.message ? `: ${err.message.slice(0, 200)}` : ''}.`);
    throw new CommandFailure(`The charger did not answer ${action} (${(err as Error).message}).`);
  }
}

async function confirmed(wait: Promise<unknown>, signal: AbortSignal, otherwise: string): Promise<void> {
  try {
    await wait;
  } catch {
    if (signal.aborted) throw abortedFailure(signal, otherwise);
    throw new CommandFailure(`${otherwise.replace(/\.$/, '')}: the charger disconnected first.`);
  }
}
