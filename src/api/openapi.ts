// Builds the OpenAPI 3.1 document from the operation declarations and the very Zod schemas that
// validate requests. Zod emits JSON Schema draft 2020-12, which is OpenAPI 3.1's dialect.
import { z } from 'zod';
import type { OperationSpec } from './operation.ts';
import { ERROR_STATUS, type ErrorCode } from './errors.ts';
import { ErrorBody, schemaRegistry } from '../domain/schemas.ts';
import type { OperationExample } from './examples.ts';

type JsonSchema = Record<string, unknown>;

const ALWAYS: ErrorCode[] = ['UNAUTHORIZED', 'TOO_MANY_REQUESTS', 'INTERNAL_SERVER_ERROR'];
/**
 * The body limit guards every request that can carry a body, declared or not; a GET carries none.
 * And any of them may write, which a full or read-only card refuses (decisions.md §5).
 */
const WITH_BODY: ErrorCode[] = ['PAYLOAD_TOO_LARGE', 'STORAGE_UNAVAILABLE'];
/** Every operation that may write refuses a read-only key (decisions.md §6); a refresh is a GET, a read. */
const WRITES: ErrorCode[] = ['FORBIDDEN'];

class SchemaCollector {
  readonly components: Record<string, JsonSchema> = {};

  /** JSON Schema of a Zod schema; named schemas become components and are referenced. */
  convert(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
    const json = z.toJSONSchema(schema, {
      target: 'draft-2020-12',
      io,
      unrepresentable: 'any',
      metadata: schemaRegistry,
      override: (ctx) => {
        const meta = schemaRegistry.get(ctx.zodSchema as unknown as z.ZodType);
        if (meta?.jsonSchema) {
          for (const key of Object.keys(ctx.jsonSchema)) delete (ctx.jsonSchema as JsonSchema)[key];
          Object.assign(ctx.jsonSchema, meta.jsonSchema);
        }
      },
    }) as JsonSchema;
    const rewritten = JSON.parse(JSON.stringify(json).replaceAll('"#/$defs/', '"#/components/schemas/')) as JsonSchema;
    const defs = (rewritten['$defs'] ?? {}) as Record<string, JsonSchema>;
    for (const [id, def] of Object.entries(defs)) this.components[id] ??= clean(def);
    delete rewritten['$defs'];
    delete rewritten['$schema'];
    const id = schemaRegistry.get(schema)?.id;
    if (id) {
      delete rewritten['id'];
      this.components[id] ??= clean(rewritten);
      return { $ref: `#/components/schemas/${id}` };
    }
    return clean(rewritten);
  }
}

function clean(schema: JsonSchema): JsonSchema {
  delete schema['id'];
  delete schema['$id'];
  return schema;
}

function parameters(collector: SchemaCollector, schema: z.ZodType | undefined, place: 'path' | 'query'): JsonSchema[] {
  if (!schema) return [];
  const json = collector.convert(schema, 'input');
  const properties = (json['properties'] ?? {}) as Record<string, JsonSchema>;
  const required = new Set((json['required'] ?? []) as string[]);
  return Object.entries(properties).map(([name, property]) => {
    const { description, ...rest } = property;
    const parameter: JsonSchema = { name, in: place, required: place === 'path' || (required.has(name) && !('default' in rest)), schema: rest };
    if (description) parameter['description'] = description;
    return parameter;
  });
}

/** `examples`: by operationId, a real success body and request body (examples.ts), shown in /docs. */
export function buildOpenApiDocument(operations: OperationSpec[], serverUrl: string, examples: Record<string, OperationExample> = {}): JsonSchema {
  const collector = new SchemaCollector();
  const errorRef = collector.convert(ErrorBody, 'output');
  const paths: Record<string, Record<string, JsonSchema>> = {};
  const tags = new Set<string>();

  for (const op of operations) {
    tags.add(op.tag);
    const responses: Record<string, JsonSchema> = {};
    const success: JsonSchema = { description: op.success.description };
    const example = examples[op.operationId];
    if (op.success.schema) {
      success['content'] = { 'application/json': { schema: collector.convert(op.success.schema, 'output'), ...(example?.response !== undefined ? { example: example.response } : {}) } };
    }
    if (op.success.contentType) success['content'] = { [op.success.contentType]: { schema: { type: 'string', contentMediaType: op.success.contentType } } };
    const headerSchema = (h: string) => ({ schema: h === 'Content-Length' ? { type: 'integer', minimum: 0 } : { type: 'string' } });
    if (op.success.headers) success['headers'] = Object.fromEntries(op.success.headers.map((h) => [h, headerSchema(h)]));
    responses[String(op.success.status)] = success;
    if (op.success.contentType === 'image/png') {
      responses['304'] = {
        description: 'Not Modified: the image matches If-None-Match',
        headers: { ETag: headerSchema('ETag'), 'Cache-Control': headerSchema('Cache-Control') },
      };
    }

    const codes = [...op.errors, ...ALWAYS, ...(op.method !== 'get' ? [...WITH_BODY, ...WRITES] : [])];
    const byStatus = new Map<number, ErrorCode[]>();
    for (const code of codes) byStatus.set(ERROR_STATUS[code], [...(byStatus.get(ERROR_STATUS[code]) ?? []), code]);
    for (const [status, list] of [...byStatus].sort((a, b) => a[0] - b[0])) {
      const response: JsonSchema = { description: list.join(', '), content: { 'application/json': { schema: errorRef } } };
      if (list.includes('STORAGE_UNAVAILABLE')) response['headers'] = { 'Retry-After': headerSchema('Retry-After') };
      responses[String(status)] = response;
    }

    const operation: JsonSchema = {
      operationId: op.operationId,
      summary: op.summary,
      tags: [op.tag],
      parameters: [...parameters(collector, op.params, 'path'), ...parameters(collector, op.query, 'query')],
      responses,
    };
    if (op.description) operation['description'] = op.description;
    if (op.hubAddition) operation['x-hub-addition'] = true;
    if (op.body) {
      const body: JsonSchema = { schema: collector.convert(op.body, 'input') };
      if (example?.request !== undefined) body['example'] = example.request;
      operation['requestBody'] = { required: true, content: { 'application/json': body } };
    }
    (paths[op.path] ??= {})[op.method] = operation;
  }

  return {
    openapi: '3.1.0',
    info: {
      title: 'Home Energy Hub API',
      version: '1.0.0',
      description: 'The /v1.0.0 device API, served locally by home-energy-hub. Every operation needs the X-API-KEY header.',
    },
    servers: [{ url: serverUrl }],
    security: [{ ApiKey: [] }],
    tags: [...tags].map((name) => ({ name })),
    paths,
    components: {
      schemas: collector.components,
      securitySchemes: {
        ApiKey: {
          type: 'apiKey', in: 'header', name: 'X-API-KEY',
          description: 'A partner\'s key reaches every household. A key scoped to one userId sees only that household: lists are '
            + 'filtered to it, another household\'s device is answered like a missing one, and connect sessions are only for its '
            + 'userId (another is a 400 naming userId). A read-only key gets 403 FORBIDDEN on every operation that may write.',
        },
      },
    },
  };
}
