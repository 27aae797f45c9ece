// createApp(deps): the whole HTTP surface. The versioned API lives under /v1.0.0 behind a key;
// logos and the docs page are public (they hold nothing secret: apps load logos with <img>).
import { randomUUID } from 'node:crypto';
import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { HTTPException } from 'hono/http-exception';
import type { ApiDeps } from './deps.ts';
import { ApiError, storageUnavailable } from './errors.ts';
import { StorageUnavailable } from '../store/storage-fault.ts';
import { apiKeyCheck } from './auth.ts';
import type { Gate, OperationRouter, OperationSpec } from './operation.ts';
import { json, secure } from './respond.ts';
import { batteryRoutes } from './routes/batteries.ts';
import { hvacRoutes } from './routes/hvacs.ts';
import { pvInverterRoutes } from './routes/pv-inverters.ts';
import { meterRoutes } from './routes/meters.ts';
import { chargerRoutes } from './routes/chargers.ts';
import { vehicleRoutes } from './routes/vehicles.ts';
import { tariffRoutes } from './routes/tariffs.ts';
import { connectionRoutes } from './routes/connections.ts';
import { householdRoutes } from './routes/household.ts';
import { pairingRoutes } from './pairing/routes.ts';
import { householdPageRoutes } from './household/routes.ts';
import { buildOpenApiDocument } from './openapi.ts';
import { operationExamples } from './examples.ts';
import { renderLandingPage } from './landing-page.ts';
import { renderDocsPage } from './docs-page.ts';
import { logoSvg } from './logos.ts';
import { opsRoutes, registerHubMetrics, type OpsDeps } from './ops.ts';
import type { Counter } from '../runtime/observability/metrics.ts';

export const API_BASE = '/v1.0.0';

export interface HubApp {
  app: Hono;
  operations: OperationSpec[];
  /** Counts an answer the server gave without the app (http-server.ts), as the app counts its own. */
  countAnswer: (method: string, status: number) => void;
}

export function createApp(deps: ApiDeps, ops?: OpsDeps): HubApp {
  const routers: OperationRouter[] = [
    batteryRoutes(deps), hvacRoutes(deps), pvInverterRoutes(deps), meterRoutes(deps),
    chargerRoutes(deps), vehicleRoutes(deps), tariffRoutes(deps), connectionRoutes(deps), householdRoutes(deps),
  ];
  const operations = routers.flatMap((r) => r.operations);
  let openApi: object | undefined;
  // Built at the first request, when the drivers have registered their vendors (the vendors example).
  const document = () => (openApi ??= buildOpenApiDocument(operations, deps.settings.publicUrl + API_BASE, operationExamples(deps.settings.publicUrl, deps.vendors, [...(deps.pairing?.forms().keys() ?? [])].sort())));

  // No app-wide middleware (see respond.ts): what every response needs happens in edge() below.
  const app = new Hono();

  app.get('/logos/:file', (c) => {
    const svg = logoSvg(c.req.param('file'));
    if (!svg) throw new ApiError('NOT_FOUND');
    return c.body(svg, 200, { 'Content-Type': 'image/svg+xml', 'Cache-Control': 'public, max-age=86400' });
  });
  let requests: Counter | undefined;
  if (ops) {
    registerHubMetrics(deps, ops);
    requests = ops.metrics.counter('hub_http_requests_total', 'HTTP requests by method and status class');
    app.route('/', opsRoutes(deps, ops));
  }
  app.get('/', (c) => c.html(renderLandingPage(deps.settings.publicUrl || new URL(c.req.url).origin, deps.settings.startedAs)));
  app.get('/docs', (c) => c.html(renderDocsPage(document() as Parameters<typeof renderDocsPage>[0])));

  // Every /v1.0.0 request, unknown routes included, passes the gate: each operation's own handler
  // runs it (operation.ts), and so do the document and the not-found answer below. Only requests
  // that may carry a body pay for the body limit: on a GET it would make the Node adapter build a
  // full Request object just to find no body.
  const gate: Gate = {
    checkKey: apiKeyCheck(deps),
    limitBody: bodyLimit({
      maxSize: deps.settings.bodyLimitBytes,
      onError: () => {
        throw new ApiError('PAYLOAD_TOO_LARGE', `Request body larger than ${deps.settings.bodyLimitBytes} bytes`);
      },
    }),
    checkWritable: () => {
      if (!deps.store.storage.writable) throw storageUnavailable(deps.store.storage.unavailable());
    },
  };
  const api = new Hono();
  api.get('/openapi.json', (c) => {
    gate.checkKey(c);
    return json(document());
  });
  for (const router of routers) router.mount(api, gate);
  app.route(API_BASE, api);

  app.route('/', pairingRoutes(deps));
  app.route('/', householdPageRoutes(deps));

  const allowed = allowedMethods(operations);
  app.notFound(async (c) => {
    if (c.req.path === API_BASE || c.req.path.startsWith(`${API_BASE}/`)) {
      gate.checkKey(c);
      if (c.req.method !== 'GET' && c.req.method !== 'HEAD') await gate.limitBody(c, async () => {});
    }
    const methods = allowed(c.req.path);
    if (methods.length > 0) throw new ApiError('METHOD_NOT_ALLOWED', undefined, undefined, { Allow: methods.join(', ') });
    throw new ApiError('NOT_FOUND', `No route for ${c.req.method} ${c.req.path}`.slice(0, 300));
  });
  app.onError((err, c) => renderError(err, c, deps));
  const countAnswer = edge(app, requests);
  return { app, operations, countAnswer };
}

/**
 * What every response needs, wrapped around the app's fetch rather than as middleware (see
 * respond.ts): the security headers, and the request count by method and status class. The server,
 * the relay and app.request() in tests all call app.fetch, so nothing goes around it.
 */
function edge(app: Hono, requests?: Counter): (method: string, status: number) => void {
  const dispatch = app.fetch;
  // Node's parser knows a fixed set of methods, so this holds a handful of series at most.
  const series = new Map<string, { inc(): void }>();
  const count = (method: string, status: number) => {
    if (!requests) return;
    const statusClass = `${Math.floor(status / 100)}xx`;
    const key = `${method} ${statusClass}`;
    let counter = series.get(key);
    if (!counter) {
      counter = requests.series({ method, status: statusClass });
      series.set(key, counter);
    }
    counter.inc();
  };
  const finish = (request: Request, response: Response) => {
    const out = secure(response);
    count(request.method, out.status);
    return out;
  };
  app.fetch = (request, env, executionCtx) => {
    const response = dispatch(request, env, executionCtx);
    return response instanceof Promise ? response.then((r) => finish(request, r)) : finish(request, response);
  };
  return count;
}

/** Renders any thrown error as the specification's error body; its id is in the log line too. */
function renderError(err: Error, c: Context, deps: ApiDeps): Response {
  const id = randomUUID();
  let error: ApiError;
  if (err instanceof ApiError) {
    error = err;
  } else if (err instanceof StorageUnavailable) {
    error = storageUnavailable(err);
  } else if (deps.store.storage.report(err)) {
    // A write the card refused (full, read-only): rolled back, nothing acknowledged.
    error = storageUnavailable(deps.store.storage.unavailable());
  } else if (err instanceof HTTPException && err.status < 500) {
    error = new ApiError(err.status === 413 ? 'PAYLOAD_TOO_LARGE' : 'BAD_REQUEST');
  } else if (bodyCutOff(err, c)) {
    // Broken chunked framing or a client gone mid-body: the client's fault, and Node's parser has
    // already answered it (client-errors.ts). A 4xx in the log and the metrics, not a server error.
    error = new ApiError('BAD_REQUEST', 'The request body was malformed or cut off');
  } else {
    error = new ApiError('INTERNAL_SERVER_ERROR');
  }
  const context = { errorId: id, errorCode: error.code, status: error.status, method: c.req.method, path: c.req.path };
  // A storage fault is logged once by the storage (storage-health.ts), not at every refused write.
  if (error.code === 'STORAGE_UNAVAILABLE') deps.log.info(context, 'request refused: storage not writable');
  else if (error.status >= 500) deps.log.error({ ...context, cause: describeCause(err) }, 'request failed');
  else deps.log.info(context, 'request rejected');
  const body: Record<string, unknown> = { errorCode: error.code, id, message: error.message };
  if (error.validationErrors) body['validationErrors'] = error.validationErrors;
  return json(body, error.status, error.headers);
}

/** Whether reading the request's body failed because of the client (Node's `aborted`, an errored stream). */
function bodyCutOff(err: Error, c: Context): boolean {
  const incoming = (c.env as { incoming?: { errored?: unknown; aborted?: boolean } } | undefined)?.incoming;
  if (incoming && (incoming.errored || incoming.aborted)) return true;
  return (err as { code?: unknown }).code === 'ECONNRESET' && err.message === 'aborted';
}

/** What may be logged of an unexpected error: its kind, never a stack, SQL or payload. */
function describeCause(err: Error): Record<string, unknown> {
  const code = (err as { code?: unknown }).code;
  if (err.name === 'SqliteError') return { type: err.name, code };
  return { type: err.name, code, message: err.message.slice(0, 200) };
}

function allowedMethods(operations: OperationSpec[]): (path: string) => string[] {
  const patterns = operations.map((op) => ({
    method: op.method.toUpperCase(),
    regex: new RegExp(`^${API_BASE.replace(/\./g, '\\.')}${op.path.replace(/\./g, '\\.').replace(/\{\w+\}/g, '[^/]+')}$`),
  }));
  return (path) => {
    const methods = new Set(patterns.filter((p) => p.regex.test(path)).map((p) => p.method));
    if (methods.has('GET')) methods.add('HEAD');
    return [...methods].sort();
  };
}
