// CarConnectivity-MQTT as its plugin publishes (tillsteinbach/CarConnectivity-plugin-mqtt,
// mqtt_client.py): a car's attributes under `{prefix}/garage/{VIN}/…`, plain payloads, retained; the
// plugin's connection_state (`connected`, last will `disconnected`); the charging start-stop command
// on `…/charging/commands/start-stop_writetopic`. The real bridge goes through the maker's cloud,
// so its new state arrives later; `delayMs` plays that part.
import { MqttDeviceSim } from './mqtt-device-sim.ts';

export interface CarConnectivityState {
  name: string;
  model: string;
  level: number;
  /** off, ready_for_charging, charging, conservation, error… */
  chargingState: string;
  powerKw: number;
  connector: 'connected' | 'disconnected';
  targetLevel: number;
}

export class CarConnectivitySim extends MqttDeviceSim {
  readonly state: CarConnectivityState = {
    name: 'ID.4 Pro', model: 'ID.4', level: 52, chargingState: 'off', powerKw: 0, connector: 'disconnected', targetLevel: 80,
  };

  constructor(url: string, readonly vin = 'WVWZZZE1ZPP000001', readonly prefix = 'carconnectivity/0', readonly pluginId = 'mqtt') {
    super({ url, will: { topic: `${prefix}/plugins/${pluginId}/connection_state`, payload: 'disconnected', retain: true, qos: 1 } });
  }

  private car(path: string): string {
    return `${this.prefix}/garage/${this.vin}/${path}`;
  }

  protected commandTopics(): string[] {
    return [this.car('charging/commands/start-stop_writetopic')];
  }

  protected async publishAll(): Promise<void> {
    await this.publish(`${this.prefix}/plugins/${this.pluginId}/connection_state`, 'connected');
    await this.publish(this.car('name'), this.state.name);
    await this.publish(this.car('model'), this.state.model);
    await this.publish(this.car('drives/primary/level'), String(this.state.level));
    await this.publish(this.car('charging/settings/target_level'), String(this.state.targetLevel));
    await this.publishCharging();
  }

  private async publishCharging(): Promise<void> {
    await this.publish(this.car('charging/connector/connection_state'), this.state.connector);
    await this.publish(this.car('charging/power'), String(this.state.powerKw));
    await this.publish(this.car('charging/state'), this.state.chargingState);
  }

  async plugIn(): Promise<void> {
    this.state.connector = 'connected';
    this.state.chargingState = 'ready_for_charging';
    await this.publishCharging();
  }

  protected async onCommand(topic: string, payload: string): Promise<void> {
    if (!topic.endsWith('/charging/commands/start-stop_writetopic')) return;
    // The bridge also takes {"command": "start"}.
    let word = payload.trim();
    if (word.startsWith('{')) word = String((JSON.parse(word) as { command?: unknown }).command ?? '');
    // A car that is not plugged in, or a cloud that refuses: nothing changes (the bridge only
    // reports an error on plugins/<id>/error, which this definition does not read).
    if (this.faults.rejecting || this.state.connector !== 'connected') return;
    if (word !== 'start' && word !== 'stop') return;
    await this.answer(async () => {
      this.state.chargingState = word === 'start' ? 'charging' : 'ready_for_charging';
      this.state.powerKw = word === 'start' ? 11 : 0;
      await this.publishCharging();
    });
  }
}
