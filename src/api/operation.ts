// An API operation is declared once: method, path, schemas of its inputs and outputs, its errors.
// `OperationRouter.add` mounts it on Hono with validation in front, and the same declarations
// build the OpenAPI document (openapi.ts), so the document cannot drift from what is enforced.
import { Hono, type Context } from 'hono';
import type { z } from 'zod';
import { ApiError, badRequest, type ErrorCode, type ValidationError } from './errors.ts';
import { parseInto } from './validation.ts';

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
  /** Errors beyond those every operation can answer (401, 413, 429, 500). */
  errors: ErrorCode[];
}

export interface OperationInput<P, Q, B> {
  params: P;
  query: Q;
  body: B;
}

type Handler<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType> = (
  c: Context,
  input: OperationInput<z.output<P>, z.output<Q>, z.output<B>>,
) => Response | Promise<Response>;

export class OperationRouter {
  readonly hono = new Hono();
  readonly operations: OperationSpec[] = [];

  add<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType>(spec: OperationSpec<P, Q, B>, handler: Handler<P, Q, B>): this {
    this.operations.push(spec as unknown as OperationSpec);
    const path = spec.path.replace(/\{(\w+)\}/g, ':$1');
    this.hono.on(spec.method.toUpperCase(), path, async (c) => {
      const errors: ValidationError[] = [];
      const params = spec.params ? parseInto(spec.params, c.req.param(), errors) : {};
      const query = spec.query ? parseInto(spec.query, presentQuery(c), errors) : {};
      const body = spec.body ? parseInto(spec.body, await readJsonBody(c), errors) : undefined;
      if (errors.length > 0) throw badRequest(errors);
      return handler(c, { params, query, body } as OperationInput<z.output<P>, z.output<Q>, z.output<B>>);
    });
    return this;
  }
}

/** The query, with empty values taken as omitted (`?name=` from a form means no filter). */
function presentQuery(c: Context): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(c.req.query())) if (value !== '') out[key] = value;
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
