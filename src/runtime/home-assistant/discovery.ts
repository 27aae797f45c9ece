// Home Assistant's MQTT discovery messages for the hub's devices, and the topics they name.
//
// Follows https://www.home-assistant.io/integrations/mqtt/#mqtt-discovery: one retained config per
// entity on `<discovery_prefix>/<component>/<node_id>/<object_id>/config`, with a `unique_id` (here
// node, device id and entity: stable across restarts), a `device` block (identifiers, manufacturer,
// model, name, `via_device`: the hub, which is a device of its own) and an `origin` (the software that
// publishes it). Availability is a list with `availability_mode: all`: an entity is available while
// the hub is (its last will says otherwise) and its device is online. An empty retained config
// removes the entity. Zigbee2MQTT's lib/extension/homeassistant.ts does the same for its devices.
import type { DeviceRecord } from '../../domain/device.ts';
import { VENDOR_NAMES } from '../../domain/vendors.ts';
import { KIND_LABEL } from '../../domain/vocabulary.ts';
import { climateState, controlsOf, type Offers } from './controls.ts';
import { offeredSensors, SENSORS, tariffCurrency } from './sensors.ts';

export interface HaSettings {
  discoveryPrefix: string;
  nodeId: string;
  /** Root of the hub's own state, availability and command topics. */
  topicPrefix: string;
}

export interface Origin {
  name: string;
  sw_version?: string;
  support_url?: string;
}

export interface DiscoveryEntry {
  topic: string;
  payload: Record<string, unknown>;
}

const ONLINE = 'online';
const OFFLINE = 'offline';

/** Every topic of the feature, from its settings. */
export class HaTopics {
  private readonly base: string;

  constructor(readonly settings: HaSettings) {
    this.base = `${settings.topicPrefix.replace(/\/+$/, '')}/${settings.nodeId}`;
  }

  /** Home Assistant's birth and last will: `online` when it (re)starts (the MQTT integration's default). */
  get birth(): string {
    return `${this.settings.discoveryPrefix}/status`;
  }

  /** The hub's availability: `online` while it runs, `offline` from its last will or a clean stop. */
  get hubStatus(): string {
    return `${this.base}/status`;
  }

  state(deviceId: string): string {
    return `${this.base}/${deviceId}/state`;
  }

  availability(deviceId: string): string {
    return `${this.base}/${deviceId}/availability`;
  }

  command(deviceId: string, name: string): string {
    return `${this.base}/${deviceId}/${name}/set`;
  }

  /** Every command topic: `<base>/<device id>/<name>/set`. */
  get commandFilter(): string {
    return `${this.base}/+/+/set`;
  }

  /** The device id and command name of a command topic, or undefined. */
  parseCommand(topic: string): { deviceId: string; name: string } | undefined {
    if (!topic.startsWith(`${this.base}/`) || !topic.endsWith('/set')) return undefined;
    const parts = topic.slice(this.base.length + 1, -'/set'.length).split('/');
    return parts.length === 2 ? { deviceId: parts[0]!, name: parts[1]! } : undefined;
  }

  config(component: string, objectId: string): string {
    return `${this.settings.discoveryPrefix}/${component}/${this.settings.nodeId}/${objectId}/config`;
  }

  /** Every config this hub may have published. */
  get configFilter(): string {
    return `${this.settings.discoveryPrefix}/+/${this.settings.nodeId}/+/config`;
  }

  /** Whether a topic is one of this node's configs (`<prefix>/<component>/<node_id>/<object_id>/config`). */
  parseConfig(topic: string): boolean {
    const prefix = `${this.settings.discoveryPrefix}/`;
    if (!topic.startsWith(prefix)) return false;
    const parts = topic.slice(prefix.length).split('/');
    return parts.length === 4 && parts[1] === this.settings.nodeId && parts[3] === 'config';
  }

  /** Whether a topic is under this hub's own state, availability and command root. */
  isOwnTopic(topic: string): boolean {
    return topic.startsWith(`${this.base}/`);
  }

  /** Every state and availability topic this hub may have published. */
  get stateFilter(): string {
    return `${this.base}/#`;
  }

  hubIdentifier(): string {
    return this.settings.nodeId;
  }

  deviceIdentifier(deviceId: string): string {
    return `${this.settings.nodeId}_${deviceId}`;
  }
}

/** The hub itself: a device with one entity that shows whether it runs. */
export function hubDiscovery(topics: HaTopics, origin: Origin): DiscoveryEntry[] {
  const objectId = `${topics.hubIdentifier()}_status`;
  return [{
    topic: topics.config('binary_sensor', objectId),
    payload: {
      name: 'Status', unique_id: objectId, device_class: 'connectivity', entity_category: 'diagnostic',
      state_topic: topics.hubStatus, payload_on: ONLINE, payload_off: OFFLINE,
      device: { identifiers: [topics.hubIdentifier()], name: 'Home energy hub', manufacturer: 'home-energy-hub', model: 'Home energy hub', sw_version: origin.sw_version },
      origin,
    },
  }];
}

/** The configs of a device's entities: its sensors (those it reports) and the controls it is offered. */
export function deviceDiscovery(topics: HaTopics, device: DeviceRecord, offers: Offers, origin: Origin): DiscoveryEntry[] {
  const vendor = VENDOR_NAMES[device.vendor] ?? device.vendor;
  const hubAvailability = { topic: topics.hubStatus, payload_available: ONLINE, payload_not_available: OFFLINE };
  const availability = {
    availability: [hubAvailability, { topic: topics.availability(device.id), payload_available: ONLINE, payload_not_available: OFFLINE }],
    availability_mode: 'all',
  };
  const common = {
    device: {
      identifiers: [topics.deviceIdentifier(device.id)],
      name: device.name ?? `${vendor} ${KIND_LABEL[device.kind].toLowerCase()}`,
      manufacturer: vendor,
      model: device.model ?? undefined,
      via_device: topics.hubIdentifier(),
    },
    origin,
  };
  const stateTopic = topics.state(device.id);
  const entry = (component: string, key: string, body: Record<string, unknown>, whileHubRuns = false): DiscoveryEntry => {
    const uniqueId = `${topics.deviceIdentifier(device.id)}_${key}`;
    const available = whileHubRuns ? { availability: [hubAvailability] } : availability;
    return { topic: topics.config(component, uniqueId), payload: { ...body, unique_id: uniqueId, ...available, ...common } };
  };
  const out: DiscoveryEntry[] = [];
  for (const spec of offeredSensors(device)) {
    const config: Record<string, unknown> = { ...spec.config };
    if (device.kind === 'tariff' && spec.key === 'price') config['unit_of_measurement'] = `${tariffCurrency(device)}/kWh`;
    out.push(entry(spec.component, spec.key, { name: spec.name, state_topic: stateTopic, value_template: `{{ value_json.${spec.key} }}`, ...config }, spec.whileHubRuns));
  }
  for (const control of controlsOf(device, offers)) {
    const body: Record<string, unknown> = { name: control.name, ...control.config };
    for (const [role, key] of Object.entries(control.stateKeys)) {
      // A sensor has one state_topic and its value_template; a climate a topic and template per role.
      body[role === 'value' ? 'state_topic' : `${role}_topic`] = stateTopic;
      body[`${role}_template`] = `{{ value_json.${key} }}`;
    }
    for (const name of control.commands) {
      // A climate's command topics are named by what they set; a button's or number's is its only one.
      body[control.component === 'climate' ? `${name}_command_topic` : 'command_topic'] = topics.command(device.id, name);
    }
    out.push(entry(control.component, control.key, body));
  }
  return out;
}

/** Everything a device's configs are made of, as one text: configs are rebuilt only when it changes. */
export function discoveryIdentity(device: DeviceRecord, offers: Offers): string {
  return JSON.stringify([
    device.name, device.model, device.vendor, device.hvacType, offeredSensors(device).map((spec) => spec.key),
    controlsOf(device, offers).map((control) => control.key),
    device.kind === 'tariff' ? tariffCurrency(device) : null, [...offers],
  ]);
}

/** The device's state topic: every value its entities read, null where the device has none. */
export function deviceState(device: DeviceRecord, offers: Offers): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const spec of SENSORS[device.kind]) out[spec.key] = spec.read(device) ?? null;
  if (device.kind === 'hvac') Object.assign(out, climateState(device, offers));
  return out;
}

export function availabilityOf(device: DeviceRecord): string {
  return device.isOnline ? ONLINE : OFFLINE;
}

export { ONLINE, OFFLINE };
