// An API operation is declared once: method, path, schemas of its inputs and outputs, its errors.
// `OperationRouter.mount` puts it on Hono with the key check and validation in front, and the same
// declarations build the OpenAPI document (openapi.ts), so the document cannot drift from what is
// enforced.
import type { Context, Hono, MiddlewareHandler } from 'hono';
import type { z } from 'zod';
import { ApiError, badRequest, type ErrorCode, type ValidationError } from './errors.ts';
import { parseInto } from '../domain/validation.ts';
import type { VerifiedKey } from '../store/api-keys.ts';
import { reachOf, type Reach } from './reach.ts';

export interface OperationSpec<
  P extends z.ZodType = z.ZodType,
  Q extends z.ZodType = z.ZodType,
  B extends z.ZodType = z.ZodType,
> {
  method: 'get' | 'post' | 'delete';
  /** OpenAPI style, relative to /v1.0.0: `/batteries/{batteryId}`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  params?: P;
  query?: Q;
  body?: B;
  success: { status: 200 | 201; description: string; schema?: z.ZodType; contentType?: string; headers?: string[] };
  /** Not documented by the origin API: marked `x-hub-addition: true` in the OpenAPI (decisions §5). */
  hubAddition?: boolean;
  /** Errors beyond those every operation can answer (401, 413, 429, 500). */
  errors: ErrorCode[];
}

export interface OperationInput<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  /** The households the request's key may reach here: every lookup and list takes it. */
  reach: Reach;
}

type Handler<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType> = (
  c: Context,
  input: OperationInput<z.output<P>, z.output<Q>, z.output<B>>,
) => Response | Promise<Response>;

/** What every operation passes before its own validation. */
export interface Gate {
  /** Throws 401 or 429 unless the request carries an active key; returns that key. */
  checkKey(c: Context): VerifiedKey;
  /** Hono's bodyLimit middleware: 413 past the limit. */
  limitBody: MiddlewareHandler;
  /** Throws 503 STORAGE_UNAVAILABLE while the card takes no writes: a write is refused before it is acknowledged. */
  checkWritable(c: Context): void;
}

export class OperationRouter {
  readonly operations: OperationSpec[] = [];
  private readonly handlers: Handler<z.ZodType, z.ZodType, z.ZodType>[] = [];

  add<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType>(spec: OperationSpec<P, Q, B>, handler: Handler<P, Q, B>): this {
    this.operations.push(spec as unknown as OperationSpec);
    this.handlers.push(handler as unknown as Handler<z.ZodType, z.ZodType, z.ZodType>);
    return this;
  }

  /**
   * Mounts each operation on `app` as a single handler: key check, body limit, validation, then the
   * operation (one that may write is refused first to a read-only key, then while the storage takes
   * no writes). Without middleware Hono calls that handler directly, so a GET answered without
   * awaiting anything goes out without a promise in between (see respond.ts).
   */
  mount(app: Hono, gate: Gate): void {
    this.operations.forEach((spec, index) => {
      const handler = this.handlers[index]!;
      const parseQuery = spec.query && queryParser(spec.query);
      const answer = (c: Context, key: VerifiedKey, rawBody: unknown) => {
        const errors: ValidationError[] = [];
        const params = spec.params ? parseInto(spec.params, c.req.param(), errors) : {};
        const query = parseQuery ? parseQuery(c, errors) : {};
        const body = spec.body ? parseInto(spec.body, rawBody, errors) : undefined;
        if (errors.length > 0) throw badRequest(errors);
        return handler(c, { params, query, body, reach: reachOf(key, (params as { userId?: string }).userId) });
      };
      const path = spec.path.replace(/\{(\w+)\}/g, ':$1');
      if (spec.method === 'get' && !spec.body) {
        app.get(path, (c) => answer(c, gate.checkKey(c), undefined));
        return;
      }
      app.on(spec.method.toUpperCase(), path, async (c) => {
        const key = gate.checkKey(c);
        // Every operation but a GET may write: commands, deletions, connect sessions (decisions.md §6).
        if (key.readOnly) throw new ApiError('FORBIDDEN', 'This key is read-only: it may not send commands, delete devices or open connect sessions');
        gate.checkWritable(c);
        let response: Response | undefined;
        await gate.limitBody(c, async () => {
          response = await answer(c, key, spec.body ? await readJsonBody(c) : undefined);
        });
        return response!;
      });
    });
  }
}

/** Most recent distinct query strings whose parsed form is kept, per operation. */
const MAX_REMEMBERED_QUERIES = 256;

/**
 * Parses the query; a query string that parsed before gets the same (frozen) result without Zod.
 * Clients repeat a handful of queries (the first page above all), and Zod's parse of a list query
 * costs several µs inside a busy server. Failures are not kept: they are parsed and worded anew.
 */
function queryParser(schema: z.ZodType): (c: Context, errors: ValidationError[]) => unknown {
  const remembered = new Map<string, unknown>();
  const names = new Set(Object.keys((schema as unknown as { shape?: object }).shape ?? {}));
  return (c, errors) => {
    const url = c.req.url;
    const at = url.indexOf('?');
    const text = at < 0 ? '' : url.slice(at + 1);
    const seen = remembered.get(text);
    if (seen !== undefined) return seen;
    const before = errors.length;
    const parsed = parseInto(schema, text === '' ? {} : presentQuery(c, names, errors), errors);
    if (parsed !== undefined && errors.length === before) {
      if (remembered.size >= MAX_REMEMBERED_QUERIES) remembered.clear();
      remembered.set(text, Object.freeze(parsed));
    }
    return parsed;
  };
}

/**
 * The query, with empty values taken as omitted (`?name=` from a form means no filter). A known
 * parameter given twice is an error: taking one of the values silently would hide a client's bug
 * (`?sortField=VENDOR&sortField=BOGUS` must not answer as if all were well). Unknown ones are ignored.
 */
function presentQuery(c: Context, known: ReadonlySet<string>, errors: ValidationError[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, values] of Object.entries(c.req.queries())) {
    if (values.length > 1 && known.has(key)) errors.push({ field: key, message: 'must be given at most once' });
    const value = values[0]!;
    if (value !== '') out[key] = value;
  }
  return out;
}

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

/** Reads a JSON body: 415 when it is not declared JSON, 400 when it does not parse. */
async function readJsonBody(c: Context): Promise<unknown> {
  const text = await c.req.text();
  if (text.length === 0) return undefined;
  const type = c.req.header('content-type') ?? '';
  if (!JSON_TYPE.test(type)) throw new ApiError('UNSUPPORTED_MEDIA_TYPE', 'Request body must be application/json');
  try {
    return JSON.parse(text);
  } catch {
    throw badRequest([{ field: 'body', message: 'is not valid JSON' }]);
  }
}
