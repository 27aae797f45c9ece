// CarConnectivity-MQTT as its plugin publishes (tillsteinbach/CarConnectivity-plugin-mqtt @3bd53dc,
// mqtt_client.py; tillsteinbach/CarConnectivity @9dfda1e): a car's attributes under
// `{prefix}/garage/{VIN}/…`, plain payloads, retained, QoS 1; the plugin's connection_state
// (`connected`, last will `disconnected`); the connector's `healthy` (True/False, as Python prints a
// bool); drives `primary`/`secondary` with their type, level and range (a plug-in hybrid's primary
// drive is its fuel tank); and the charging start-stop command on
// `…/charging/commands/start-stop_writetopic`. Each write is answered by the plugin at once on
// `plugins/{id}/error/code` (0, or -4 when the command's hook, the cloud call, fails) and
// `plugins/{id}/error/message` (empty on success), not retained. The car's new charging state only
// arrives with the connector's next fetch from the maker's cloud: `fetchDelayMs` plays that part
// (undefined: not before `fetch()` is called).
import { MqttDeviceSim } from './mqtt-device-sim.ts';

export interface CarConnectivityDrive {
  type: 'electric' | 'gasoline' | 'diesel' | 'petrol';
  level: number;
  range: number;
}

export interface CarConnectivityState {
  name: string;
  model: string;
  drives: { primary: CarConnectivityDrive; secondary?: CarConnectivityDrive };
  /** off, ready_for_charging, charging, conservation, error… */
  chargingState: string;
  powerKw: number;
  connector: 'connected' | 'disconnected';
  targetLevel: number;
  healthy: boolean;
}

export interface CarConnectivityOptions {
  vin?: string;
  prefix?: string;
  pluginId?: string;
  connectorId?: string;
  /** A plug-in hybrid: primary drive the fuel tank, secondary the battery. */
  hybrid?: boolean;
  /** When the connector's next fetch brings the car's new state after a command; undefined: on fetch() only. */
  fetchDelayMs?: number;
}

export class CarConnectivitySim extends MqttDeviceSim {
  readonly state: CarConnectivityState;
  readonly vin: string;
  readonly prefix: string;
  readonly pluginId: string;
  readonly connectorId: string;
  /** What the cloud will report at the next fetch. */
  private next: { chargingState: string; powerKw: number } | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(url: string, private readonly car: CarConnectivityOptions = {}) {
    const prefix = car.prefix ?? 'carconnectivity/0';
    const pluginId = car.pluginId ?? 'mqtt';
    super({ url, will: { topic: `${prefix}/plugins/${pluginId}/connection_state`, payload: 'disconnected', retain: true, qos: 1 } });
    this.vin = car.vin ?? 'WVWZZZE1ZPP000001';
    this.prefix = prefix;
    this.pluginId = pluginId;
    this.connectorId = car.connectorId ?? 'volkswagen';
    this.state = {
      name: 'ID.4 Pro', model: 'ID.4',
      drives: car.hybrid
        ? { primary: { type: 'gasoline', level: 63, range: 420 }, secondary: { type: 'electric', level: 41, range: 24 } }
        : { primary: { type: 'electric', level: 52, range: 210 } },
      chargingState: 'off', powerKw: 0, connector: 'disconnected', targetLevel: 80, healthy: true,
    };
  }

  private topic(path: string): string {
    return `${this.prefix}/garage/${this.vin}/${path}`;
  }

  protected commandTopics(): string[] {
    return [this.topic('charging/commands/start-stop_writetopic')];
  }

  protected async publishAll(): Promise<void> {
    await this.publish(`${this.prefix}/plugins/${this.pluginId}/connection_state`, 'connected');
    await this.publish(`${this.prefix}/connectors/${this.connectorId}/healthy`, this.state.healthy ? 'True' : 'False');
    await this.publish(this.topic('name'), this.state.name);
    await this.publish(this.topic('model'), this.state.model);
    for (const [id, drive] of Object.entries(this.state.drives)) {
      await this.publish(this.topic(`drives/${id}/type`), drive.type);
      await this.publish(this.topic(`drives/${id}/level`), String(drive.level));
      await this.publish(this.topic(`drives/${id}/range`), String(drive.range));
    }
    await this.publish(this.topic('charging/settings/target_level'), String(this.state.targetLevel));
    await this.publishCharging();
  }

  private async publishCharging(): Promise<void> {
    await this.publish(this.topic('charging/connector/connection_state'), this.state.connector);
    await this.publish(this.topic('charging/power'), String(this.state.powerKw));
    await this.publish(this.topic('charging/state'), this.state.chargingState);
  }

  async plugIn(): Promise<void> {
    this.state.connector = 'connected';
    this.state.chargingState = 'ready_for_charging';
    await this.publishCharging();
  }

  /** The connector's login stops working (or works again): healthy changes. */
  async setHealthy(healthy: boolean): Promise<void> {
    this.state.healthy = healthy;
    await this.publish(`${this.prefix}/connectors/${this.connectorId}/healthy`, healthy ? 'True' : 'False');
  }

  /** The connector's next fetch: what the cloud reports now. */
  async fetch(): Promise<void> {
    if (!this.next) return;
    Object.assign(this.state, this.next);
    this.next = undefined;
    await this.publishCharging();
  }

  override async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    await super.stop();
  }

  /** The plugin's answer to a write (mqtt_client.py _set_error): the code, then the message. */
  private async answerWrite(code: number, message: string): Promise<void> {
    await this.publish(`${this.prefix}/plugins/${this.pluginId}/error/code`, String(code), false);
    await this.publish(`${this.prefix}/plugins/${this.pluginId}/error/message`, message, false);
  }

  protected async onCommand(topic: string, payload: string): Promise<void> {
    if (!topic.endsWith('/charging/commands/start-stop_writetopic')) return;
    await this.answer(async () => {
      // command_impl.py: the text is parsed as `start` or `stop`; anything else is a SetterError.
      const word = payload.trim();
      if (word !== 'start' && word !== 'stop') {
        return this.answerWrite(-4, `Error executing command: Invalid format for ChargingStartStopCommand: argument command: invalid Command value: '${word}' usage:  {start,stop}`);
      }
      // The connector's hook calls the cloud; a refusal there is a SetterError too.
      if (this.faults.rejecting) return this.answerWrite(-4, 'Error executing command: Could not control charging (403: Forbidden)');
      if (this.state.connector !== 'connected') return this.answerWrite(-4, 'Error executing command: Could not control charging (car not connected)');
      this.next = word === 'start' ? { chargingState: 'charging', powerKw: 11 } : { chargingState: 'ready_for_charging', powerKw: 0 };
      await this.answerWrite(0, '');
      if (this.car.fetchDelayMs !== undefined) this.timer = setTimeout(() => void this.fetch().catch(() => {}), this.car.fetchDelayMs);
    });
  }
}
