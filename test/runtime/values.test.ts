// The pieces HTTP definitions lean on: path selections in JSON answers ([key=value], [*] summed),
// the offset of a value rule, Daikin's key=value answers, template filling in two passes and the
// expiry of a JWT.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyRule, valueAt } from '../../src/runtime/values/values.ts';
import { fill, jwtExpiryMs, parseBody } from '../../src/runtime/http/http-reader.ts';

const PRODUCTION = {
  consumption: [
    { type: 'eim', measurementType: 'total-consumption', wNow: 8884.72 },
    { type: 'eim', measurementType: 'net-consumption', wNow: -1761.624 },
  ],
  'devices:': [{ real_power_mw: -1324000 }, { real_power_mw: -1316000 }, { soc: 3 }],
};

test('a path selects the element whose key has a value, and [*] collects a key of every element', () => {
  assert.equal(valueAt(PRODUCTION, 'consumption[measurementType=net-consumption].wNow'), -1761.624);
  assert.equal(valueAt(PRODUCTION, 'consumption[measurementType=storage].wNow'), undefined);
  assert.deepEqual(valueAt(PRODUCTION, '"devices:"[*].real_power_mw'), [-1324000, -1316000]);
  // A number rule sums the list, then converts.
  assert.equal(applyRule({ path: '"devices:"[*].real_power_mw', as: 'number', scale: 0.001, unit: 'W', to: 'kW' }, PRODUCTION), -2.64);
  assert.equal(applyRule({ path: '"devices:"[*].missing', as: 'number' }, PRODUCTION), undefined);
});

test('an offset is added before the scale (the Powerwall\'s 5 % reserve)', () => {
  assert.equal(applyRule({ path: 'percentage', as: 'number', offset: -5, scale: 1 / 0.95, digits: 1 }, { percentage: 81 }), 80);
});

test('Daikin key=value answers: percent-encoded values decoded, "-" kept as text (no number)', () => {
  const data = parseBody('ret=OK,htemp=25.0,hhum=-,name=%4e%6f%74%74%65,method=home only', 'keyvalue') as Record<string, string>;
  assert.deepEqual(data, { ret: 'OK', htemp: '25.0', hhum: '-', name: 'Notte', method: 'home only' });
  assert.equal(applyRule({ path: 'hhum', as: 'number' }, data), undefined);
});

test('templates fill {value} first, so that {dt{value}} names the setpoint kept for a mode', () => {
  assert.equal(fill(fill('{dt{value}}', { value: '4' }, true), { dt4: '21.0' }), '21.0');
  assert.throws(() => fill('{missing}', {}), /no value for missing/);
  assert.equal(fill('{dt0|dt1|stemp}', { dt1: '25.0', stemp: '22.0' }), '25.0', 'the first of the alternatives that is known');
});

test('the expiry of a JWT token; other tokens have none', () => {
  const payload = Buffer.from(JSON.stringify({ exp: 1767225600 })).toString('base64url');
  assert.equal(jwtExpiryMs(`e30.${payload}.c2ln`), 1767225600_000);
  assert.equal(jwtExpiryMs('not-a-jwt'), undefined);
});

test('hex text as a BRP084 writes numbers: the first byte, or little-endian signed bytes', () => {
  assert.equal(applyRule({ path: 'v', as: 'number', decode: 'hex-byte', scale: 0.5 }, { v: '34' }), 26);
  assert.equal(applyRule({ path: 'v', as: 'number', decode: 'hex-le-signed', scale: 0.5 }, { v: '2200' }), 17);
  assert.equal(applyRule({ path: 'v', as: 'number', decode: 'hex-le-signed', scale: 0.5 }, { v: 'F6FF' }), -5);
  assert.equal(applyRule({ path: 'v', as: 'number', decode: 'hex-byte' }, { v: 'zz' }), undefined);
});
