// Throwaway certificates for TLS tests: a CA, a server certificate for localhost/127.0.0.1 signed
// by it, and a client certificate signed by it.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LIBFAKETIME } from './peers.ts';

export interface TestCertificates {
  caFile: string;
  serverCertFile: string;
  serverKeyFile: string;
  clientCertFile: string;
  clientKeyFile: string;
}

export function makeCertificates(dir: string): TestCertificates {
  const f = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=hub-test-ca', '-keyout', f('ca.key'), '-out', f('ca.crt'));
  const extensions = { server: 'subjectAltName=DNS:localhost,IP:127.0.0.1\n', client: 'extendedKeyUsage=clientAuth\n' };
  for (const [who, ext] of Object.entries(extensions)) {
    writeFileSync(f(`${who}.ext`), ext);
    openssl('req', '-newkey', 'rsa:2048', '-nodes', '-subj', `/CN=${who}`, '-keyout', f(`${who}.key`), '-out', f(`${who}.csr`));
    openssl('x509', '-req', '-in', f(`${who}.csr`), '-CA', f('ca.crt'), '-CAkey', f('ca.key'), '-CAcreateserial', '-days', '2',
      '-extfile', f(`${who}.ext`), '-out', f(`${who}.crt`));
  }
  return { caFile: f('ca.crt'), serverCertFile: f('server.crt'), serverKeyFile: f('server.key'), clientCertFile: f('client.crt'), clientKeyFile: f('client.key') };
}

/**
 * A self-signed certificate as a device makes itself (an Envoy's is issued to "envoy"), and its key;
 * valid for 2 days from now, or from `validFrom` ("2030-01-01 00:00:00", made under libfaketime: a
 * device whose clock is ahead of the hub's, or a certificate long expired).
 */
export function makeSelfSigned(dir: string, commonName: string, name = commonName, validFrom?: string): { cert: string; key: string } {
  const f = (file: string) => join(dir, file);
  const env = validFrom ? { ...process.env, LD_PRELOAD: LIBFAKETIME, FAKETIME: `@${validFrom}` } : process.env;
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', `/CN=${commonName}`,
    '-keyout', f(`${name}.key`), '-out', f(`${name}.crt`)], { stdio: 'pipe', env });
  return { cert: readFileSync(f(`${name}.crt`), 'utf8'), key: readFileSync(f(`${name}.key`), 'utf8') };
}
