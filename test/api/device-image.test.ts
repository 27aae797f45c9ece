// Device images (a vehicle's, an HVAC unit's): PNG with Content-Length, ETag and Cache-Control; 304 on
// a matching tag; 404 DEVICE_IMAGE_NOT_FOUND without one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestHub, ids, json, type TestHub } from '../support/hub.ts';
import { demoRecords, DEMO_USER } from '../../src/demo/site.ts';
import { isPng } from '../../src/domain/png.ts';
import { etagMatches } from '../../src/api/device-image.ts';

/** Asserts `path` serves a PNG with its caching headers, 304 for a matching tag; returns the PNG. */
async function assertServesPicture(hub: TestHub, path: string): Promise<Buffer> {
  const res = await hub.request(path);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'image/png');
  const png = Buffer.from(await res.arrayBuffer());
  assert.ok(isPng(png));
  assert.equal(res.headers.get('content-length'), String(png.length));
  const etag = res.headers.get('etag')!;
  assert.match(etag, /^"[A-Za-z0-9_-]+"$/);
  assert.match(res.headers.get('cache-control')!, /max-age=\d+/);

  const again = await hub.request(path, { headers: { 'if-none-match': `"other", W/${etag}` } });
  assert.equal(again.status, 304);
  assert.equal(again.headers.get('etag'), etag);
  assert.equal(again.headers.get('content-type'), 'image/png');
  assert.equal((await again.arrayBuffer()).byteLength, 0);
  assert.equal((await hub.request(path, { headers: { 'if-none-match': '"stale"' } })).status, 200);
  return png;
}

test('GET image.png serves the stored PNG with caching headers, and 304 for a matching ETag', async (t) => {
  const hub = createTestHub();
  t.after(hub.close);
  hub.seed(demoRecords(hub.clock.now()));
  const png = await assertServesPicture(hub, `/users/${DEMO_USER}/vehicles/${ids.vehicle}/image.png`);
  assert.equal(png.readUInt32BE(16), 320, 'a real 320-pixel-wide picture');
});

test('image errors: another owner is VEHICLE_NOT_FOUND; no image is DEVICE_IMAGE_NOT_FOUND', async (t) => {
  const hub = createTestHub();
  t.after(hub.close);
  hub.seed(demoRecords(hub.clock.now()));
  const other = await json(await hub.request(`/users/somebody/vehicles/${ids.vehicle}/image.png`));
  assert.equal(other.errorCode, 'VEHICLE_NOT_FOUND');
  hub.store.deviceImages.delete(ids.vehicle);
  const res = await hub.request(`/users/${DEMO_USER}/vehicles/${ids.vehicle}/image.png`);
  assert.equal(res.status, 404);
  assert.equal((await json(res)).errorCode, 'DEVICE_IMAGE_NOT_FOUND');
});

test('an HVAC unit has its image.png as a vehicle has: PNG, caching headers, 304, and its own 404s', async (t) => {
  const hub = createTestHub();
  t.after(hub.close);
  hub.seed(demoRecords(hub.clock.now()));
  const path = `/users/${DEMO_USER}/hvacs/${ids.hvac}/image.png`;
  await assertServesPicture(hub, path);

  assert.equal((await json(await hub.request(`/users/somebody/hvacs/${ids.hvac}/image.png`))).errorCode, 'HVAC_NOT_FOUND');
  assert.equal((await json(await hub.request(`/users/${DEMO_USER}/hvacs/${ids.vehicle}/image.png`))).errorCode, 'HVAC_NOT_FOUND', 'a vehicle is no HVAC unit');
  hub.store.deviceImages.delete(ids.hvac);
  const none = await hub.request(path);
  assert.equal(none.status, 404);
  const body = await json(none);
  assert.equal(body.errorCode, 'DEVICE_IMAGE_NOT_FOUND');
  assert.equal(body.message, `[HVAC] No image for HVAC unit ${ids.hvac}`);
});

test('the store refuses anything that is not a PNG', (t) => {
  const hub = createTestHub();
  t.after(hub.close);
  assert.throws(() => hub.store.deviceImages.set(ids.vehicle, Buffer.from('GIF89a....................'), 0), /not a PNG/);
});

test('If-None-Match compares weakly and understands *', () => {
  assert.equal(etagMatches('*', '"a"'), true);
  assert.equal(etagMatches('W/"a"', '"a"'), true);
  assert.equal(etagMatches('"b", "a"', '"a"'), true);
  assert.equal(etagMatches('"b"', '"a"'), false);
  assert.equal(etagMatches(undefined, '"a"'), false);
});
