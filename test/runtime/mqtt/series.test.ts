// A list published one value per topic (SeriesSpec), as evcc publishes its forecast
// (server/mqtt.go publishComplex): the count topic and `<topic>/<n>/<part>`. What an untrusted
// publisher sends never grows the list past its cap nor crashes the session; a value not understood
// leaves the list as it was.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { SeriesBuffer, topicMatches } from '../../../src/runtime/mqtt/series.ts';
import { MqttSession } from '../../../src/runtime/mqtt/mqtt-session.ts';
import { MqttDriverRegistry } from '../../../src/runtime/mqtt/mqtt-registry.ts';
import type { StateTopic, SeriesSpec } from '../../../src/runtime/mqtt/definition.ts';
import type { DeviceRecord } from '../../../src/domain/device.ts';
import { silentLogger } from '../../../src/log.ts';
import tariffTopic from '../../../drivers/mqtt/tariff-topic.ts';

const GRID = 'evcc/site/forecast/grid';
const SPEC: StateTopic & { series: SeriesSpec } = {
  topic: GRID, format: 'plain', fields: {},
  series: {
    field: 'forecast', maxSlots: 4,
    slot: { startMs: { at: '1', as: 'number', scale: 1000, digits: 0 }, pricePerKwh: { at: '3', as: 'number', digits: 5 } },
  },
};

function buffer(): SeriesBuffer {
  return new SeriesBuffer(SPEC, GRID);
}

/** Publishes slots as evcc does: the count, then each slot's parts. */
function publish(series: SeriesBuffer, slots: [number, string][]): void {
  series.take(GRID, Buffer.from(String(slots.length)));
  slots.forEach(([start, price], i) => {
    series.take(`${GRID}/${i + 1}`, Buffer.from('3'));
    series.take(`${GRID}/${i + 1}/1`, Buffer.from(String(start)));
    series.take(`${GRID}/${i + 1}/3`, Buffer.from(price));
  });
}

test('series: the count and each slot\'s parts make the list, in order; none before the count is heard', () => {
  const series = buffer();
  assert.equal(series.take(`${GRID}/2/1`, Buffer.from('1764255600')), 'changed');
  assert.equal(series.take(`${GRID}/2/3`, Buffer.from('0.31')), 'changed');
  assert.equal(series.take(`${GRID}/2/3`, Buffer.from('0.310')), 'same', 'a repeat (evcc republishes every round)');
  assert.equal(series.list(), undefined, 'no count yet');
  series.take(`${GRID}/1/3`, Buffer.from('0.287'));
  series.take(GRID, Buffer.from('2'));
  assert.deepEqual(series.list(), [{ startMs: 1764255600000, pricePerKwh: 0.31 }], 'slot 1 lacks its start: left out');
  series.take(`${GRID}/1/1`, Buffer.from('1764252000'));
  assert.deepEqual(series.list(), [{ startMs: 1764252000000, pricePerKwh: 0.287 }, { startMs: 1764255600000, pricePerKwh: 0.31 }]);
});

test('series: a shorter count leaves the slots past it out (they stay retained on the broker); an empty count is an empty list', () => {
  const series = buffer();
  publish(series, [[1000, '0.3'], [2000, '0.2'], [3000, '0.1']]);
  assert.equal(series.list()!.length, 3);
  series.take(GRID, Buffer.from('1'));
  assert.deepEqual(series.list(), [{ startMs: 1_000_000, pricePerKwh: 0.3 }]);
  series.take(GRID, Buffer.from(''));
  assert.deepEqual(series.list(), []);
});

test('series: an empty part erases it (evcc\'s cleanup), the slot is out until it comes again', () => {
  const series = buffer();
  publish(series, [[1000, '0.3'], [2000, '0.2']]);
  series.take(`${GRID}/1/3`, Buffer.alloc(0));
  assert.deepEqual(series.list(), [{ startMs: 2_000_000, pricePerKwh: 0.2 }]);
});

test('series: what it does not understand is ignored and the list stays as it was', () => {
  const series = buffer();
  publish(series, [[1000, '0.3'], [2000, '0.2']]);
  const before = series.list();
  const ignored: [string, string][] = [
    [GRID, 'two'], [GRID, '-1'], [GRID, '1.5'], [GRID, '1e3'],
    [`${GRID}/1/3`, 'cheap'], [`${GRID}/1/3`, 'NaN'], [`${GRID}/1/3`, 'Infinity'],
    [`${GRID}/01/3`, '9'], [`${GRID}/0/3`, '9'], [`${GRID}/-1/3`, '9'], [`${GRID}/1e0/3`, '9'],
    [`${GRID}/1/2`, '9'], [`${GRID}/1/3/4`, '9'], [`${GRID}/1`, '9'], [`${GRID}x/1/3`, '9'], ['evcc/site/forecast/feedIn/1/3', '9'],
    [`${GRID}/5/3`, '9'], [`${GRID}/99999999999/3`, '9'],
  ];
  for (const [topic, payload] of ignored) assert.equal(series.take(topic, Buffer.from(payload)), 'ignored', `${topic} ${payload}`);
  assert.deepEqual(series.list(), before);
});

test('series: a count past maxSlots keeps maxSlots; slots past it are never held', () => {
  const series = buffer();
  series.take(GRID, Buffer.from('100000'));
  for (let n = 1; n <= 1000; n++) {
    series.take(`${GRID}/${n}/1`, Buffer.from(String(n)));
    series.take(`${GRID}/${n}/3`, Buffer.from('0.1'));
  }
  assert.equal(series.held, 4);
  assert.equal(series.list()!.length, 4);
});

test('series property: any topics and payloads under the forecast prefix never throw nor hold more than maxSlots', () => {
  const level = fc.oneof(fc.constantFrom('1', '2', '3', '4', '5', '0', '01', '+', '#', '', '384', '385'), fc.string({ maxLength: 6 }), fc.nat().map(String));
  const topic = fc.oneof(
    fc.constant(GRID),
    fc.array(level, { minLength: 1, maxLength: 4 }).map((levels) => `${GRID}/${levels.join('/')}`),
    fc.string({ maxLength: 30 }),
  );
  const payload = fc.oneof(fc.uint8Array({ maxLength: 24 }).map((bytes) => Buffer.from(bytes)), fc.oneof(fc.double(), fc.integer(), fc.constantFrom('', ' ', '3', '1e309', '-0')).map((v) => Buffer.from(String(v))));
  fc.assert(fc.property(fc.array(fc.tuple(topic, payload), { maxLength: 200 }), (messages) => {
    const series = buffer();
    for (const [t, p] of messages) series.take(t, p);
    const list = series.list();
    assert.ok(series.held <= SPEC.series.maxSlots);
    assert.ok(list === undefined || list.length <= SPEC.series.maxSlots);
    for (const slot of list ?? []) assert.ok(Number.isFinite(slot['startMs']) && Number.isFinite(slot['pricePerKwh']));
  }), { numRuns: 300 });
});

test('topicMatches: + is one level, # the rest, nothing outside the filter', () => {
  assert.equal(topicMatches(`${GRID}/+/3`, `${GRID}/12/3`), true);
  assert.equal(topicMatches(`${GRID}/+/3`, `${GRID}/12/3/1`), false);
  assert.equal(topicMatches(`${GRID}/+/3`, `${GRID}/3`), false);
  assert.equal(topicMatches(`${GRID}/+/3`, 'evcc/site/forecast/feedIn/1/3'), false);
  assert.equal(topicMatches('a/#', 'a/b/c'), true);
});

test('tariff-topic session: evcc\'s forecast topics are heard through wildcards under the forecastTopic, kept as `forecast`', () => {
  const registry = new MqttDriverRegistry([tariffTopic]);
  const device = {
    id: 't1', kind: 'tariff', userId: 'u', vendor: 'TIBBER', name: null, model: null, isOnline: false, lastUpdatedMs: null, locationId: null,
    hvacType: null, staticData: {}, state: null, driver: { type: 'tariff-topic', forecastTopic: 'evcc2/site/forecast/grid' }, createdAtMs: 0,
  } as DeviceRecord;
  const session = new MqttSession(device, registry.definitionFor(device.driver!), silentLogger());
  const filters = session.routes().filter(([, route]) => route.kind === 'series').map(([filter]) => filter);
  assert.deepEqual(filters.sort(), ['evcc2/site/forecast/grid', 'evcc2/site/forecast/grid/+/1', 'evcc2/site/forecast/grid/+/2', 'evcc2/site/forecast/grid/+/3']);
  const route = session.routes().find(([, r]) => r.kind === 'series')![1];
  assert.ok(route.kind === 'series');
  const hear = (topic: string, payload: string) => session.onSeries(route.series, topic, Buffer.from(payload), 0);
  hear('evcc2/site/forecast/grid', '1');
  hear('evcc2/site/forecast/grid/1/1', '1764255600');
  hear('evcc2/site/forecast/grid/1/2', '1764259200');
  assert.equal(hear('evcc2/site/forecast/grid/1/3', '0.287'), true);
  const forecast = [{ startMs: 1764255600000, endMs: 1764259200000, pricePerKwh: 0.287 }];
  assert.deepEqual(session.settleSeries(), { forecast }, 'assembled once for every message before');
  assert.deepEqual(session.values['forecast'], forecast);
  const heard = session.messages;
  assert.equal(hear('evcc2/site/forecast/grid/1/3', 'n/a'), false, 'a price not understood changes nothing');
  assert.equal(hear('evcc2/site/forecast/grid/1/3', '0.287'), false, 'nor does a repeat');
  assert.equal(session.messages, heard + 2, 'but the device is heard');
  assert.deepEqual(session.settleSeries(), {});

  const none = new MqttSession({ ...device, driver: { type: 'tariff-topic', forecastTopic: '' } }, registry.definitionFor({ type: 'tariff-topic' }), silentLogger());
  assert.equal(none.routes().some(([, r]) => r.kind === 'series'), false, 'empty forecastTopic: not listened to');
});

test('a series definition is checked: its parts one topic level each, its cap bounded', () => {
  const bad = (series: SeriesSpec) => () => new MqttDriverRegistry([{ ...tariffTopic, type: 'bad', derived: {}, state: [{ topic: 'x', format: 'plain', fields: {}, series }] }]);
  assert.throws(bad({ field: 'l', maxSlots: 10, slot: { a: { at: '+', as: 'number' } } }), /one topic level/);
  assert.throws(bad({ field: 'l', maxSlots: 10, slot: { a: { at: '1/2', as: 'number' } } }), /one topic level/);
  assert.throws(bad({ field: 'l', maxSlots: 100_000, slot: { a: { at: '1', as: 'number' } } }), /1 to 1000 slots/);
  assert.throws(bad({ field: 'l', maxSlots: 10, slot: { a: { at: '1', as: 'number' }, b: { at: '1', as: 'number' } } }), /twice/);
});
