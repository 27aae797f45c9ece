// Carrying out one command over MQTT: the command's payload becomes the device's values, each step
// is published, and the device's confirmation is awaited: its new state, a result topic, or a
// response matched by correlation data.
//
// Commands are published with QoS 0 and only while connected: mqtt.js would otherwise queue them
// while the broker is away, or resend an unacknowledged one after a reconnect, and a command whose
// time is up must never reach the device late. A lost command is not confirmed and fails with a
// reason, which is the truth.
import { randomUUID } from 'node:crypto';
import type { IClientPublishOptions, IPublishPacket, MqttClient } from 'mqtt';
import type { CommandType } from '../../domain/vocabulary.ts';
import { abortedFailure, CommandFailure, DeviceNotReached } from '../commands/executor.ts';
import { commandValues } from '../commands/command-values.ts';
import type { CommandSpec } from './definition.ts';
import type { MqttSession } from './mqtt-session.ts';
import { decodePayload, valueAt } from '../values/values.ts';
import { boundedSignal } from '../bounded-signal.ts';

/** How long a rejection waits for the reason the bridge publishes after it. */
const REASON_WAIT_MS = 2000;
/** How long a first write waits for the device to show which topic variant it speaks. */
const DIALECT_PROBE_MS = 10_000;

/**
 * Before a write whose topic differs by variant (ebusd's two namings, `names: auto`) while the
 * device has not been heard in one yet (just after a start): the definition's probe goes out in
 * every variant, the device answers under its own (ebusd publishes a message read by `…/get` under
 * its own name, mqtthandler.cpp), and the write then goes where the device listens. Without an
 * answer nothing is written, and the command waits for the device like one for an unreachable one.
 */
async function learnDialect(client: MqttClient, session: MqttSession, spec: CommandSpec, signal: AbortSignal): Promise<void> {
  const probe = session.dialectProbeSteps();
  if (probe.length === 0 || !spec.publish.some((step) => session.dependsOnDialect(step.topic))) return;
  // Not AbortSignal.any with AbortSignal.timeout, whose timeout Node 20 may collect before it fires.
  const bounded = boundedSignal(signal, DIALECT_PROBE_MS);
  try {
    const heard = session.waitForState(() => session.dialect !== undefined, session.messages, bounded.signal);
    heard.catch(() => {});
    for (const step of probe) if (client.connected) await client.publishAsync(step.topic, step.payload, { qos: 0 });
    try {
      await heard;
    } catch {
      if (signal.aborted) throw abortedFailure(signal, 'The command was cancelled before it was sent.');
      throw new DeviceNotReached(`The device did not show which message names it uses within ${DIALECT_PROBE_MS / 1000} s; nothing was written.`);
    }
  } finally {
    bounded.done();
  }
  session.log.info({ dialect: session.dialect }, 'mqtt: topic variant learned before the first write');
}

export async function runMqttCommand(client: MqttClient, session: MqttSession, type: CommandType, spec: CommandSpec, payload: unknown, signal: AbortSignal): Promise<void> {
  const values = commandValues(spec.value, type, payload, session.settings);
  // A schedule written day by day gives one value per step; any other command gives every step the
  // same `{value}` (e.g. a write, then a request to read it back).
  if (spec.value.from === 'schedule' && values.length !== spec.publish.length) {
    throw new CommandFailure(`${type}: the device's format needs ${spec.publish.length} parts, the command gave ${values.length}.`);
  }
  await learnDialect(client, session, spec, signal);
  const correlation = randomUUID();
  // A schedule written day by day is confirmed by its last part, which the device takes last.
  const confirmation = awaitConfirmation(session, spec, values[values.length - 1]!, correlation, signal);
  confirmation.catch(() => {}); // observed below; a publish failure must not leave it unhandled
  const expirySeconds = Math.max(1, Math.ceil((spec.timeoutMs ?? 30_000) / 1000));
  for (const [index, step] of spec.publish.entries()) {
    if (signal.aborted) throw abortedFailure(signal, 'The command was cancelled before it was sent.');
    if (!client.connected) throw new CommandFailure('The hub lost its broker connection before the command was sent.');
    const value = String(values.length === 1 ? values[0] : values[index]);
    const options: IClientPublishOptions = { qos: 0, retain: step.retain ?? false };
    if (client.options.protocolVersion === 5) {
      options.properties = { messageExpiryInterval: expirySeconds };
      if (step.withResponseTopic) {
        options.properties.responseTopic = session.fill(step.withResponseTopic);
        options.properties.correlationData = Buffer.from(correlation);
      }
    }
    await client.publishAsync(session.fill(step.topic), session.fill(step.payload, { value, correlation }), options);
  }
  await confirmation;
}

function awaitConfirmation(session: MqttSession, spec: CommandSpec, value: string | number | boolean, correlation: string, signal: AbortSignal): Promise<void> {
  const confirm = spec.confirm;
  if (confirm.by === 'state') {
    const target = confirm.equals ?? value;
    const same = confirm.sameAs;
    const form = (v: unknown) => (same ? String(v).split(same.separator).map((part) => same.map[part] ?? part).join(same.separator) : v);
    const matches = () => session.values[confirm.field] !== undefined && sameValue(form(session.values[confirm.field]), form(target));
    // Already showing the target: the device is where the command asks it to be.
    if (matches()) return Promise.resolve();
    return session.waitForState(matches, session.messages, signal).catch(() => {
      throw abortedFailure(signal, 'The device did not confirm the command.');
    });
  }
  const topic = session.fill(confirm.topic);
  const reasonTopic = confirm.by === 'result' && confirm.reasonTopic ? session.fill(confirm.reasonTopic) : undefined;
  const success = confirm.by === 'result' ? confirm.success.map((word) => session.fill(word, { value: String(value) })) : [];
  return new Promise((resolve, reject) => {
    /** A result that was not success, whose reason may follow on reasonTopic. */
    let refused: { word: string; timer: NodeJS.Timeout } | undefined;
    const refuse = (word: string, reason: string | undefined) => {
      finish(() => reject(new CommandFailure(`The device rejected the command: ${(reason || word || 'no reason given').slice(0, 200)}.`)));
    };
    const onReply = (replyTopic: string, payload: Buffer, packet: IPublishPacket) => {
      if (refused && replyTopic === reasonTopic) {
        clearTimeout(refused.timer);
        return refuse(refused.word, payload.toString('utf8').trim());
      }
      if (replyTopic !== topic) return;
      const data = decodePayload(payload, 'json');
      if (confirm.by === 'response') {
        const theirs = confirm.correlation === 'property'
          ? packet.properties?.correlationData?.toString()
          : String(valueAt(data, confirm.correlation.path) ?? '');
        if (theirs !== correlation) return; // someone else's answer
        const ok = confirm.success.equals.includes(String(valueAt(data, confirm.success.path) ?? ''));
        const reason = confirm.reasonPath ? valueAt(data, confirm.reasonPath) : undefined;
        finish(() => (ok ? resolve() : reject(new CommandFailure(`The device rejected the command${reason ? `: ${String(reason).slice(0, 200)}` : '.'}`))));
        return;
      }
      const word = String(valueAt(data, confirm.path) ?? '');
      if (success.includes(word)) return finish(resolve);
      if (confirm.others === 'ignore') return;
      // The bridge publishes its reason right after the result (CarConnectivity: error/code, then error/message).
      if (reasonTopic) refused = { word, timer: setTimeout(() => refuse(word, undefined), REASON_WAIT_MS) };
      else refuse(word, undefined);
    };
    const onAbort = () => finish(() => reject(abortedFailure(signal, 'The device did not confirm the command.')));
    const finish = (fn: () => void) => {
      if (refused) clearTimeout(refused.timer);
      session.off('reply', onReply);
      signal.removeEventListener('abort', onAbort);
      fn();
    };
    session.on('reply', onReply);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Values compare as text, so that 16 and "16", true and "true" agree. */
function sameValue(a: unknown, b: unknown): boolean {
  return a !== undefined && String(a) === String(b);
}
