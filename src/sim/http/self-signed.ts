// A self-signed certificate for a simulated device that serves HTTPS (the demo's Enphase gateway),
// made with the system's openssl, as the real gateway makes its own. Undefined where openssl is
// missing: the demo then serves that device over plain HTTP (its binding says scheme http).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function selfSignedCertificate(commonName: string): { cert: string; key: string } | undefined {
  const dir = mkdtempSync(join(tmpdir(), 'hub-sim-cert-'));
  try {
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '3650',
      '-subj', `/CN=${commonName}`, '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { stdio: 'pipe', timeout: 10_000 });
    return { cert: readFileSync(join(dir, 'cert.pem'), 'utf8'), key: readFileSync(join(dir, 'key.pem'), 'utf8') };
  } catch {
    return undefined;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
