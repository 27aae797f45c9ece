// What the cloud family's HTTPS calls share: a maker's URL as a transport target verified as a
// browser would (against the public CAs, or a test's CA), and an answer's JSON object.
import type { HttpAnswer, HttpTarget } from '../../transport/http-device.ts';

export function targetOf(base: string, endpoints: { ca?: string | undefined }): HttpTarget {
  const url = new URL(base);
  return { scheme: 'https', host: url.hostname, port: Number(url.port || 443), verified: endpoints.ca ? { ca: endpoints.ca } : {} };
}

/** The answer's JSON object; {} for anything else (an HTML error page, an empty body). */
export function parseJson(answer: HttpAnswer): Record<string, unknown> {
  try {
    const body = JSON.parse(answer.body) as unknown;
    return body && typeof body === 'object' ? (body as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
