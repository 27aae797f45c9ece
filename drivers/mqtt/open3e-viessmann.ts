// Viessmann E3 ("One Base") heat pumps and boilers through open3e (open3e/open3e: README,
// src/open3e/Open3Eclient.py, Open3Edatapoints.md), which reads data points (DIDs) over CAN/DoIP.
// Two HVAC devices: the first heating circuit (HEATING_CIRCUIT) and hot water (DHW).
//
// The topic format this driver supports is open3e started in listener mode with
//   open3e -m <broker>:1883:open3e -mfstr "{ecuAddr:03X}_{didNumber}_{didName}" -j \
//          -l open3e/cmnd -r 268,271,274,396,424,1415 -t 30
// so each data point is one JSON message on `open3e/680_396_DomesticHotWaterTemperatureSetpoint`
// (`-j`: one JSON payload per DID instead of one sub-topic per member). Follows open3e @6553c10
// (2026-07-15). open3e publishes `{prefix}/LWT` online on connect and registers offline as its last
// will (both retained, Open3Eclient.py), which is the device's availability; the data points are not
// retained, and silence still counts (`staleAfterMs`, or the binding's `staleAfterSeconds` to match
// its `-t`): open3e may run while its CAN bus is gone. A write on the command topic is answered by
// nothing: each write is followed by a `read-json` of the same DID, and confirmed by the value read back.
import { defineMqttDriver, type StateTopic } from '../../src/runtime/mqtt/definition.ts';

const did = (number: number, name: string) => `{prefix}/{ecu}_${number}_${name}`;
const json = (number: number, name: string, fields: StateTopic['fields']): StateTopic => ({ topic: did(number, name), format: 'json', fields });
const command = (body: string) => ({ topic: '{commandTopic}', payload: body });
/** Asks open3e to read DIDs now and publish them as JSON ("read-json", even without -j). */
const readJson = (dids: readonly number[]) => command(`{"mode":"read-json","data":[${dids.join(',')}],"addr":"0x{ecu}"}`);

const SETTINGS = {
  prefix: { default: 'open3e', pattern: '[^/#+]+(/[^/#+]+)*', description: 'the topic name of open3e\'s -m option (host:port:TOPIC)' },
  ecu: { default: '680', pattern: '[0-9A-F]{3}', description: 'the ECU address in hex, upper case, without 0x (680 for the main controller)' },
  commandTopic: { default: 'open3e/cmnd', pattern: '[^/#+]+(/[^/#+]+)*', description: 'the topic of open3e\'s -l option' },
  staleAfterSeconds: { pattern: '[0-9]+', description: 'silence in seconds after which the device is offline (default 180; keep it above open3e\'s -t)' },
};

// {prefix}/LWT: online on connect, offline as the last will; retained.
const LWT = { topic: '{prefix}/LWT', online: ['online'], offline: ['offline'] };

// 274 OutsideTemperatureSensor: Actual/Minimum/Maximum/Average (°C), SensorStatus.
const OUTSIDE = json(274, 'OutsideTemperatureSensor', { outsideTemperature: { path: 'Actual', as: 'number', digits: 2 } });

export const open3eViessmannCircuit = defineMqttDriver({
  protocol: 'mqtt',
  type: 'open3e-viessmann-circuit',
  title: 'Viessmann heating circuit 1 (E3) through open3e',
  source: 'open3e (Viessmann E3 over CAN/DoIP to MQTT)',
  vendors: [{ domain: 'hvac', code: 'VIESSMANN' }],
  kinds: ['hvac'],
  settings: SETTINGS,
  availability: LWT,
  staleAfterMs: 180_000,
  staleAfterSetting: 'staleAfterSeconds',
  refresh: [readJson([268, 274, 424, 1415])],
  state: [
    // 268 FlowTemperatureSensor: flow temperature, Actual (°C).
    json(268, 'FlowTemperatureSensor', { flowTemperature: { path: 'Actual', as: 'number', digits: 2 } }),
    OUTSIDE,
    // 424 MixerOneCircuitRoomTemperatureSetpoint: {"Comfort","Standard","Reduced","Increased","Duration"}, °C, rw.
    json(424, 'MixerOneCircuitRoomTemperatureSetpoint', {
      targetTemperature: { path: 'Comfort', as: 'number', digits: 2 },
      standardTemperature: { path: 'Standard', as: 'number', digits: 2 },
      reducedTemperature: { path: 'Reduced', as: 'number', digits: 2 },
    }),
    // 1415 MixerOneCircuitOperationState: Mode {0 Off, 1 Heating, …, 5 Cooling, 255 Automatic} and
    // State, enums published as {"ID": n, "Text": "…"} by current open3e versions.
    json(1415, 'MixerOneCircuitOperationState', {
      operationMode: { path: 'Mode.Text', as: 'string' },
      operationState: { path: 'State.Text', as: 'string' },
    }),
  ],
  commands: {
    SET_TEMPERATURE: {
      // Sub-DID addressing writes one member, so the others (and their order, which open3e's
      // encoder depends on for whole objects) stay as they are: README, listener mode,
      // {"mode":"write","data":[["2214.DischargeLimit",20.0]],"addr":"0x6a1"}.
      value: { from: 'payload', field: 'temperature', min: 3, max: 37, digits: 1 },
      publish: [command('{"mode":"write","data":[["424.Comfort",{value}]],"addr":"0x{ecu}"}'), readJson([424])],
      confirm: { by: 'state', field: 'targetTemperature' },
      timeoutMs: 20_000,
    },
    SET_MODE: {
      // 1415.Mode is an O3EEnum ("OpModes"), whose encoder takes the mode's text (Open3Ecodecs.py:
      // a str, or a dict's 'Text', is looked up in the list): 0 Off, 1 Heating, 5 Cooling, 255 Automatic.
      value: { from: 'payload-enum', field: 'mode', map: { OFF: 'Off', HEAT: 'Heating', COOL: 'Cooling', AUTO: 'Automatic' } },
      publish: [command('{"mode":"write","data":[["1415.Mode","{value}"]],"addr":"0x{ecu}"}'), readJson([1415])],
      confirm: { by: 'state', field: 'operationMode' },
      timeoutMs: 20_000,
    },
  },
});

export const open3eViessmannDhw = defineMqttDriver({
  protocol: 'mqtt',
  type: 'open3e-viessmann-dhw',
  title: 'Viessmann hot water (E3) through open3e',
  source: 'open3e (Viessmann E3 over CAN/DoIP to MQTT)',
  vendors: [{ domain: 'hvac', code: 'VIESSMANN' }],
  kinds: ['hvac'],
  settings: SETTINGS,
  availability: LWT,
  staleAfterMs: 180_000,
  staleAfterSetting: 'staleAfterSeconds',
  refresh: [readJson([271, 274, 396])],
  state: [
    // 271 DomesticHotWaterSensor: cylinder temperature, Actual (°C).
    json(271, 'DomesticHotWaterSensor', { waterTemperature: { path: 'Actual', as: 'number', digits: 2 } }),
    OUTSIDE,
    // 396 DomesticHotWaterTemperatureSetpoint: Int16 °C (e.g. 47.5), rw.
    json(396, 'DomesticHotWaterTemperatureSetpoint', { targetTemperature: { as: 'number', digits: 2 } }),
  ],
  commands: {
    SET_TEMPERATURE: {
      // README: {"mode":"write","data":[[396,45.0]]}; 10 to 60 °C [inferred: common E3 DHW range].
      value: { from: 'payload', field: 'temperature', min: 10, max: 60, digits: 1 },
      publish: [command('{"mode":"write","data":[[396,{value}]],"addr":"0x{ecu}"}'), readJson([396])],
      confirm: { by: 'state', field: 'targetTemperature' },
      timeoutMs: 20_000,
    },
  },
});
