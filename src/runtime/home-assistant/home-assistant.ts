// Home Assistant sees the hub: every device is published for MQTT discovery (discovery.ts), its
// values follow on one retained JSON state topic per device and its reachability on an availability
// topic, and what Home Assistant commands becomes the hub's own command (create-command.ts): stored
// PENDING, carried out by the worker, listed by the API.
//
// Lifecycle, as Home Assistant's MQTT discovery documentation asks and Zigbee2MQTT's
// lib/extension/homeassistant.ts does it: everything is (re)published on each broker connection and
// when Home Assistant's birth message (`<discovery_prefix>/status` = `online`) says it (re)started;
// a deleted device's configs are emptied (an empty retained config removes an entity); the hub's own
// availability is `online` while it runs and `offline` from its last will (set on the connection, see
// the daemon) or a clean stop. Configs of this node that the hub no longer publishes (a device deleted
// while the hub was down) are emptied when the broker hands them back on subscription.
//
// Updates arrive as the hub's events, which are told at most once per device per second (batched
// writes); a topic is published only when its text changed, so an update that changes nothing sends
// nothing.
import type { IPublishPacket, MqttClient } from 'mqtt';
import type { DeviceRecord } from '../../domain/device.ts';
import type { Logger } from '../../log.ts';
import type { Store } from '../../store/store.ts';
import { StorageUnavailable } from '../../store/storage-fault.ts';
import type { BrokerLink } from '../../transport/broker-link.ts';
import { createCommand, type CommandIntake } from '../commands/create-command.ts';
import type { HubEvent, HubEvents } from '../events/hub-events.ts';
import type { Offers } from './controls.ts';
import { availabilityOf, deviceDiscovery, discoveryIdentity, deviceState, hubDiscovery, OFFLINE, ONLINE, type HaTopics, type Origin } from './discovery.ts';
import { haCommand } from './ha-commands.ts';

export interface HomeAssistantDeps {
  store: Store;
  link: BrokerLink;
  events: HubEvents;
  topics: HaTopics;
  origin: Origin;
  /** The commands a device can be offered (CommandWorker.offers). */
  offers(device: DeviceRecord): Offers;
  /** How a command is stored and handed on: the API's way. */
  intake: CommandIntake;
  log: Logger;
  /** How often every device is compared with what was published (changes no event tells: a rename by
   * the hub command in another process). */
  resyncMs?: number;
}

/** What was last published for a device: config payloads by topic, its state and availability. */
interface Published {
  configs: Map<string, string>;
  /** What the configs were built from (discoveryIdentity). */
  identity?: string;
  state?: string;
  availability?: string;
}

export class HomeAssistantBridge {
  private readonly published = new Map<string, Published>();
  private hubConfigs = new Set<string>();
  private client: MqttClient | undefined;
  private offEvents: (() => void) | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly onConnect = (client: MqttClient) => this.connected(client);
  private readonly onMessage = (topic: string, payload: Buffer, packet: IPublishPacket) => this.message(topic, payload, packet);

  constructor(private readonly deps: HomeAssistantDeps) {}

  start(): void {
    this.deps.link.on('connect', this.onConnect);
    this.offEvents = this.deps.events.on((event) => this.onEvent(event));
    const client = this.deps.link.client;
    if (client?.connected) this.connected(client);
    this.timer = setInterval(() => this.resync(), this.deps.resyncMs ?? 60_000);
    this.timer.unref();
  }

  /** Says the hub is going (a clean stop sends no last will); call before the broker link stops. */
  async stop(): Promise<void> {
    this.deps.link.off('connect', this.onConnect);
    clearInterval(this.timer);
    this.timer = undefined;
    this.offEvents?.();
    this.offEvents = undefined;
    const client = this.client;
    this.client = undefined;
    client?.off('message', this.onMessage);
    if (client?.connected) await client.publishAsync(this.deps.topics.hubStatus, OFFLINE, { qos: 1, retain: true }).catch(() => {});
  }

  /** Everything again: on each connection and on Home Assistant's birth message. */
  publishAll(): void {
    this.pass(true);
  }

  /** Publishes what changed since the last pass (only that), for devices changed by another process. */
  resync(): void {
    this.pass(false);
  }

  private pass(force: boolean): void {
    if (!this.client?.connected) return;
    this.deps.store.sync();
    if (force) {
      this.publish(this.deps.topics.hubStatus, ONLINE);
      const hub = hubDiscovery(this.deps.topics, this.deps.origin);
      this.hubConfigs = new Set(hub.map((e) => e.topic));
      for (const entry of hub) this.publish(entry.topic, JSON.stringify(entry.payload));
    }
    const present = new Set<string>();
    for (const device of this.deps.store.devices.all()) {
      present.add(device.id);
      this.refresh(device, force);
    }
    for (const id of [...this.published.keys()]) if (!present.has(id)) this.remove(id);
  }

  private connected(client: MqttClient): void {
    if (this.client !== client) {
      this.client?.off('message', this.onMessage);
      this.client = client;
      client.on('message', this.onMessage);
    }
    // Published before the config topics are subscribed to: what the broker then hands back that is
    // not in this set is stale.
    this.publishAll();
    const { topics } = this.deps;
    client.subscribe([topics.birth, topics.commandFilter, topics.configFilter], { qos: 1 }, (err) => {
      if (err) this.deps.log.warn({ err: { message: err.message } }, 'home assistant: subscription refused');
    });
  }

  private onEvent(event: HubEvent): void {
    if (event.type === 'command' || event.type === 'price.update') return;
    const id = event.device.id;
    if (event.type === 'delete') this.remove(id);
    else this.refresh(this.deps.store.devices.get(id) ?? event.device, false);
    // A charger that comes or goes changes what its owner's vehicle can be offered.
    if (event.device.kind === 'charger' && event.type !== 'update' && event.type !== 'offline') {
      for (const device of this.deps.store.devices.all()) {
        if (device.kind === 'vehicle' && device.userId === event.device.userId) this.refresh(device, false);
      }
    }
  }

  /** Publishes what changed of a device: its entities' configs (emptying those it no longer has), state, availability. */
  private refresh(device: DeviceRecord, force: boolean): void {
    if (!this.client?.connected) return;
    const offers = this.deps.offers(device);
    let known = this.published.get(device.id);
    if (!known) {
      known = { configs: new Map() };
      this.published.set(device.id, known);
    }
    // Most updates change values only: the configs are built again only when what they are made of
    // changed (names, what is reported, what can be commanded), or when everything is republished.
    const identity = discoveryIdentity(device, offers);
    if (force || identity !== known.identity) {
      const configs = new Map(deviceDiscovery(this.deps.topics, device, offers, this.deps.origin).map((e) => [e.topic, JSON.stringify(e.payload)]));
      for (const topic of known.configs.keys()) if (!configs.has(topic)) this.publish(topic, '');
      for (const [topic, text] of configs) if (force || known.configs.get(topic) !== text) this.publish(topic, text);
      known.configs = configs;
      known.identity = identity;
    }
    const state = JSON.stringify(deviceState(device, offers));
    if (force || known.state !== state) this.publish(this.deps.topics.state(device.id), state);
    known.state = state;
    const availability = availabilityOf(device);
    if (force || known.availability !== availability) this.publish(this.deps.topics.availability(device.id), availability);
    known.availability = availability;
  }

  /** A deleted device leaves Home Assistant: empty retained configs, and its retained topics cleared. */
  private remove(deviceId: string): void {
    // Away from the broker, the device stays listed: the pass at the next connection finds it gone
    // from the store and removes it then.
    if (!this.client?.connected) return;
    const known = this.published.get(deviceId);
    this.published.delete(deviceId);
    if (!known) return;
    for (const topic of known.configs.keys()) this.publish(topic, '');
    this.publish(this.deps.topics.state(deviceId), '');
    this.publish(this.deps.topics.availability(deviceId), '');
  }

  private message(topic: string, payload: Buffer, packet: IPublishPacket): void {
    const { topics } = this.deps;
    try {
      if (topic === topics.birth) {
        if (payload.toString() === ONLINE) this.publishAll();
        return;
      }
      const command = topics.parseCommand(topic);
      if (command) {
        // A retained command would be carried out again at every connection: only live ones count.
        if (!packet.retain) this.command(command.deviceId, command.name, payload.toString());
        return;
      }
      if (packet.retain && payload.length > 0 && this.isStale(topic)) {
        this.deps.log.info({ topic }, 'home assistant: removing a config this hub no longer publishes');
        this.publish(topic, '');
      }
    } catch (err) {
      this.deps.log.warn({ err: { type: (err as Error).name, message: (err as Error).message }, topic }, 'home assistant: message not handled');
    }
  }

  /** A config of this node's filter that neither the hub nor any device of it publishes now. */
  private isStale(topic: string): boolean {
    if (!this.deps.topics.parseConfig(topic)) return false;
    if (this.hubConfigs.has(topic)) return false;
    for (const known of this.published.values()) if (known.configs.has(topic)) return false;
    return true;
  }

  private command(deviceId: string, name: string, text: string): void {
    const log = this.deps.log.child({ device: deviceId, command: name });
    const device = this.deps.store.devices.get(deviceId);
    if (!device) {
      log.warn('home assistant: command for a device the hub does not have; ignored');
      return;
    }
    const wanted = haCommand(name, text, this.deps.offers(device));
    if (typeof wanted === 'string') {
      log.warn({ reason: wanted }, 'home assistant: command refused');
      return;
    }
    try {
      createCommand(this.deps.intake, device, wanted.type, wanted.payload, 'home-assistant');
    } catch (err) {
      // The card is full or read-only: the command is not taken (Home Assistant sends it again).
      if (!(err instanceof StorageUnavailable)) throw err;
      log.warn({ reason: err.message }, 'home assistant: command refused');
    }
  }

  private publish(topic: string, text: string): void {
    // Nothing is queued while the broker is away (each connection publishes everything anew). QoS 1
    // and retained: a Home Assistant (re)starting later still finds configs, states and availability.
    if (this.client?.connected) this.client.publish(topic, text, { qos: 1, retain: true });
  }
}
