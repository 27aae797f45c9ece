// HTTPS when configured: the hub serves its API over TLS with the configured certificate; a missing
// certificate file is a configuration error with its path, before anything starts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Daemon } from '../../src/daemon.ts';
import { ConfigSchema, ConfigError, loadConfig } from '../../src/config.ts';
import { silentLogger } from '../../src/log.ts';
import { makeCertificates } from '../support/tls.ts';
import { tempFile } from '../support/files.ts';

const KEY = 'https-test-key-0123456789abcdefgh';

test('with http.tls the API is served over HTTPS, every answer with HSTS', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'hub-https-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const certs = makeCertificates(dir);
  const daemon = new Daemon({
    config: ConfigSchema.parse({ dataDir: join(dir, 'data'), http: { port: 0, tls: { certFile: certs.serverCertFile, keyFile: certs.serverKeyFile } }, apiKey: KEY }),
    log: silentLogger(),
  });
  await daemon.start();
  t.after(() => daemon.stop());
  assert.match(daemon.url, /^https:\/\/127\.0\.0\.1:\d+$/);
  const get = (path: string, headers: Record<string, string> = {}) => new Promise<{ status: number; body: string; hsts: unknown }>((resolve, reject) => {
    const req = request(`${daemon.url}${path}`, { headers, ca: readFileSync(certs.caFile) }, (res) => {
      let text = '';
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, body: text, hsts: res.headers['strict-transport-security'] }));
    });
    req.on('error', reject);
    req.end();
  });
  const list = await get('/v1.0.0/batteries', { 'x-api-key': KEY });
  assert.equal(list.status, 200);
  assert.equal(JSON.parse(list.body).totalElements, 0);
  for (const [path, status] of [['/v1.0.0/batteries', 401], ['/docs', 200], ['/health', 200]] as const) {
    const res = await get(path);
    assert.equal(res.status, status, path);
    assert.equal(res.hsts, 'max-age=15552000; includeSubDomains', path);
  }
  assert.equal(list.hsts, 'max-age=15552000; includeSubDomains');
});

test('a certificate file that cannot be read is a configuration error with its path', (t) => {
  const file = tempFile(t, 'hub.yaml', 'http:\n  tls:\n    certFile: /nonexistent/hub.pem\n    keyFile: /nonexistent/hub.key\n');
  assert.throws(() => loadConfig({ HUB_CONFIG: file }), (err: unknown) => {
    assert.ok(err instanceof ConfigError);
    assert.deepEqual(err.problems.map((p) => p.field), ['http.tls.certFile', 'http.tls.keyFile']);
    assert.match(err.problems[0]!.message, /^cannot be read: \/nonexistent\/hub\.pem \(ENOENT\)$/);
    return true;
  });
});
