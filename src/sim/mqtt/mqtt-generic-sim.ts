// A "hub-native" wallbox: a device built to be driven by the generic definition, with nothing but
// plain MQTT conventions. It publishes its state as one retained JSON document, says online/offline
// on a status topic (last will `offline`), and takes commands three ways:
// - `{base}/request` (MQTT 5): JSON `{"op": "setCurrent", "value": 10}`; the answer goes to the
//   request's response topic with its correlation data: `{"ok": true}` or `{"ok": false, "error": …}`;
// - `{base}/rpc`: JSON `{"id": …, "method": "stop"|"start"}`; the answer on `{base}/rpc/reply`
//   echoes the id: `{"id": …, "result": "ok"|"error", "message": …}`;
// - `{base}/set/enabled` ← `true|false`: no answer, the new state shows it.
import type { IPublishPacket } from 'mqtt';
import { MqttDeviceSim } from './mqtt-device-sim.ts';

export interface HubNativeState {
  /** idle, waiting, charging, done, fault */
  status: string;
  enabled: boolean;
  plugged: boolean;
  limitA: number;
  powerW: number;
}

export class MqttGenericSim extends MqttDeviceSim {
  readonly state: HubNativeState = { status: 'idle', enabled: true, plugged: false, limitA: 16, powerW: 0 };
  /** Answers someone else's request first (another correlation), which the hub must ignore. */
  strayAnswers = false;

  constructor(url: string, readonly base = 'home/wallbox-1') {
    super({ url, protocolVersion: 5, will: { topic: `${base}/status`, payload: 'offline', retain: true, qos: 1 } });
  }

  protected commandTopics(): string[] {
    return [`${this.base}/request`, `${this.base}/rpc`, `${this.base}/set/enabled`];
  }

  protected async publishAll(): Promise<void> {
    await this.publish(`${this.base}/status`, 'online');
    await this.publishState();
  }

  private async publishState(): Promise<void> {
    const s = this.state;
    s.status = !s.plugged ? 'idle' : s.enabled ? 'charging' : 'waiting';
    s.powerW = s.status === 'charging' ? s.limitA * 230 * 3 : 0;
    await this.publish(`${this.base}/state`, JSON.stringify({ status: s.status, power_w: s.powerW, limit_a: s.limitA, plug: { connected: s.plugged }, enabled: s.enabled }));
  }

  async plugIn(): Promise<void> {
    this.state.plugged = true;
    await this.publishState();
  }

  protected async onCommand(topic: string, payload: string, packet: IPublishPacket): Promise<void> {
    if (topic === `${this.base}/set/enabled`) {
      if (this.faults.rejecting) return;
      return this.answer(async () => {
        this.state.enabled = payload.trim() === 'true';
        await this.publishState();
      });
    }
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(payload) as Record<string, unknown>;
    } catch {
      return;
    }
    if (topic === `${this.base}/request`) return this.onRequest(body, packet);
    if (topic === `${this.base}/rpc`) return this.onRpc(body);
  }

  /** MQTT 5 request/response: the answer goes where the request asked, with its correlation data. */
  private async onRequest(body: Record<string, unknown>, packet: IPublishPacket): Promise<void> {
    const responseTopic = packet.properties?.responseTopic;
    const correlationData = packet.properties?.correlationData;
    if (!responseTopic) return; // a request nobody waits for
    const reply = (answer: unknown, correlation = correlationData) =>
      this.publish(responseTopic, JSON.stringify(answer), false, correlation ? { correlationData: correlation } : undefined);
    await this.answer(async () => {
      if (this.strayAnswers) await reply({ ok: false, error: 'not yours' }, Buffer.from('someone-else'));
      if (this.faults.rejecting) return reply({ ok: false, error: 'locked by the installer' });
      if (body['op'] !== 'setCurrent' || typeof body['value'] !== 'number') return reply({ ok: false, error: `unknown request ${String(body['op'])}` });
      if (body['value'] < 6 || body['value'] > 32) return reply({ ok: false, error: `limit ${body['value']} A out of range` });
      this.state.limitA = body['value'];
      await reply({ ok: true });
      await this.publishState();
    });
  }

  /** JSON RPC style: the correlation is the id inside the message. */
  private async onRpc(body: Record<string, unknown>): Promise<void> {
    const reply = (answer: Record<string, unknown>) => this.publish(`${this.base}/rpc/reply`, JSON.stringify({ id: body['id'], ...answer }), false);
    await this.answer(async () => {
      if (this.strayAnswers) await this.publish(`${this.base}/rpc/reply`, JSON.stringify({ id: 'someone-else', result: 'error', message: 'not yours' }), false);
      if (this.faults.rejecting) return reply({ result: 'error', message: 'locked by the installer' });
      if (body['method'] !== 'start' && body['method'] !== 'stop') return reply({ result: 'error', message: `unknown method ${String(body['method'])}` });
      this.state.enabled = body['method'] === 'start';
      await reply({ result: 'ok' });
      await this.publishState();
    });
  }
}
