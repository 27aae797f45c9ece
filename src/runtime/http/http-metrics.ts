// What HTTP polling tells /metrics: the devices polled, the polls and their failures.
import type { MetricsRegistry } from '../observability/metrics.ts';
import type { HttpRuntime } from './http-runtime.ts';

export function watchHttp(http: HttpRuntime, metrics: MetricsRegistry): void {
  metrics.gauge('hub_http_devices', 'Devices the HTTP driver polls', () => http.deviceCount);
  metrics.gauge('hub_http_polls', 'HTTP polls that read the device, since start', () => http.polls);
  metrics.gauge('hub_http_poll_errors', 'HTTP polls that failed (no answer, refused credentials, rate limits), since start', () => http.pollErrors);
}
