// Recognises an HTTP device at a host by its own discovery answer (an Envoy's /info, a Powerwall
// gateway's /api/status, a Daikin adapter's basic_info), asked without credentials. Over HTTPS the
// certificate the device presents is read first and the discovery request is made with that
// certificate pinned: what `hub scan` and `hub devices add` show the installer to accept (trust on
// first use), never a request over an unverified connection.
import type { DeviceKind } from '../../domain/vocabulary.ts';
import { httpRequest, peekCertificate, type PinnedCertificate } from '../../transport/http-device.ts';
import type { HttpDriverDefinition } from './definition.ts';
import type { HttpDriverRegistry } from './http-registry.ts';

export interface DiscoveredHttpDevice {
  definition: HttpDriverDefinition;
  scheme: 'http' | 'https';
  port: number;
  /** Over HTTPS: the certificate the device presented, to be pinned in its binding. */
  certificate?: PinnedCertificate;
  model?: string;
  serial?: string;
  firmware?: string;
  kinds: readonly DeviceKind[];
}

export interface DiscoveryOptions {
  timeoutMs: number;
  /** Only this port (default: 443 for https, 80 for http). */
  port?: number;
  /** Only these definitions (a --driver given). */
  types?: readonly string[];
  /** Settings the installer gave: a definition whose every request carries a header from a
   * setting (a BRP072C's registered uuid) sends it with the discovery request too. */
  settings?: Record<string, string>;
}

/** Every definition whose discovery answer the host gives; an unreachable host gives none. */
export async function discoverHttp(host: string, registry: HttpDriverRegistry, options: DiscoveryOptions): Promise<DiscoveredHttpDevice[]> {
  const found: DiscoveredHttpDevice[] = [];
  const certificates = new Map<number, Promise<PinnedCertificate | undefined>>();
  const certificateAt = (port: number) => {
    if (!certificates.has(port)) certificates.set(port, peekCertificate(host, port, options.timeoutMs).catch(() => undefined));
    return certificates.get(port)!;
  };
  for (const definition of registry.all()) {
    const discovery = definition.discovery;
    if (!discovery || (options.types && !options.types.includes(definition.type))) continue;
    // The definition's scheme first: a BRP072C (https) answers where a BRP069 (http) does not.
    for (const scheme of definition.scheme === 'https' ? (['https'] as const) : (['http', 'https'] as const)) {
      const port = options.port ?? (scheme === 'https' ? 443 : 80);
      const certificate = scheme === 'https' ? await certificateAt(port) : undefined;
      if (scheme === 'https' && !certificate) continue;
      const auth = definition.auth;
      const value = auth.scheme === 'header' ? options.settings?.[auth.setting] : undefined;
      const headers = auth.scheme === 'header' && value !== undefined ? { [auth.header]: value } : undefined;
      const answer = await httpRequest({ scheme, host, port, pinned: certificate }, {
        method: discovery.body === undefined ? 'GET' : 'POST', path: discovery.path, body: discovery.body, timeoutMs: options.timeoutMs, maxBytes: 256 * 1024,
        headers: { ...headers, ...(discovery.body === undefined ? {} : { 'content-type': 'application/json' }) },
      })
        .catch(() => undefined);
      if (!answer || answer.status !== 200 || !new RegExp(discovery.matches).test(answer.body)) continue;
      const pick = (pattern: string | undefined) => (pattern ? new RegExp(pattern).exec(answer.body)?.[1] : undefined);
      found.push({
        definition, scheme, port, certificate, kinds: discovery.kinds,
        model: pick(discovery.model), serial: pick(discovery.serial), firmware: pick(discovery.firmware),
      });
      break;
    }
  }
  return found;
}

/** One line for the installer: what it is, where, and the certificate to accept. */
export function describeDiscovered(device: DiscoveredHttpDevice): string {
  const what = [device.definition.title, device.model && `model ${device.model}`, device.serial && `serial ${device.serial}`, device.firmware && `firmware ${device.firmware}`]
    .filter(Boolean).join(', ');
  const tls = device.certificate ? `; certificate SHA-256 ${device.certificate.sha256}` : '';
  return `${what} (${device.scheme}://…:${device.port}) -> driver ${device.definition.type}, kinds ${device.kinds.join(', ')}${tls}`;
}
