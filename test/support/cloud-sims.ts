// The makers' clouds for the cloud family's tests: BMW's login service and CarData REST API, and the
// Volvo Cars API with Volvo ID, each an HTTPS simulator on loopback with a certificate from a
// throwaway CA that the hub is told to trust; and the owner's browser following Volvo ID's redirect.
import type { TestContext } from 'node:test';
import https from 'node:https';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CardataAuthSim, type CardataAuthSimOptions } from '../../src/sim/cloud/cardata-auth-sim.ts';
import { VolvoApiSim, type VolvoApiSimOptions } from '../../src/sim/cloud/volvo-api-sim.ts';
import type { CardataEndpoints } from '../../src/runtime/cloud/cardata-oauth.ts';
import type { VolvoEndpoints } from '../../src/runtime/cloud/volvo-api.ts';
import { makeCertificates } from './tls.ts';

async function startTls<T extends CardataAuthSim | VolvoApiSim>(t: TestContext, sim: T, prefix: string): Promise<{ ca: string; url: string }> {
  const certs = makeCertificates(mkdtempSync(join(tmpdir(), prefix)));
  await sim.start({ tls: { cert: readFileSync(certs.serverCertFile), key: readFileSync(certs.serverKeyFile) } });
  t.after(() => sim.stop());
  return { ca: readFileSync(certs.caFile, 'utf8'), url: `https://localhost:${sim.port}` };
}

/** BMW's login service and REST API (one server); the stream URL points nowhere. */
export async function cardataLoginService(t: TestContext, options: Partial<CardataAuthSimOptions> = {}): Promise<{ sim: CardataAuthSim; endpoints: CardataEndpoints }> {
  const sim = new CardataAuthSim({ clientId: 'client-1', gcid: 'gcid-1', idTokens: ['id-1'], ...options });
  const { ca, url } = await startTls(t, sim, 'hub-cardata-');
  return { sim, endpoints: { authUrl: url, apiUrl: url, streamUrl: 'mqtts://localhost:1', ca } };
}

/** Volvo ID and the Volvo Cars API (one server). */
export async function volvoService(t: TestContext, options: VolvoApiSimOptions): Promise<{ sim: VolvoApiSim; endpoints: VolvoEndpoints; url: string; ca: string }> {
  const sim = new VolvoApiSim(options);
  const { ca, url } = await startTls(t, sim, 'hub-volvo-');
  return { sim, endpoints: { authUrl: url, apiUrl: url, ca }, url, ca };
}

/** The owner's browser opening `target` (trusting `ca`): the status and where it is sent next. */
export function browse(target: string, ca: string): Promise<{ status: number; location: string }> {
  return new Promise((resolve, reject) => {
    https.get(target, { ca, rejectUnauthorized: true }, (res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0, location: String(res.headers.location ?? '') });
    }).on('error', reject);
  });
}
