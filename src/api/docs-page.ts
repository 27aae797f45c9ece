// A readable, self-contained page of the API built from the OpenAPI document (no scripts, no
// assets from elsewhere: the gateway may have no internet): a table of contents by tag, each
// operation with its parameters (defaults shown), body and answers, schemas linked to each other,
// and an example of each body: the document's own (a real answer, examples.ts), else one built from
// its schema.
type Json = Record<string, any>;

function esc(text: unknown): string {
  return String(text ?? '').replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

/** Escaped text with the descriptions' `inline code` shown as code rather than as backticks. */
function prose(text: unknown): string {
  return esc(text).replace(/`([^`]+)`/g, '<code>$1</code>');
}

/** Where the example URLs point: the hub itself (the page names no other host). */
const BASE_URL = Symbol('base');
const refName = (ref: string) => ref.split('/').pop()!;
const schemaLink = (name: string) => `<a href="#schema-${esc(name)}">${esc(name)}</a>`;

/** The type as HTML: a referenced schema is a link to it. */
function typeHtml(schema: Json | undefined): string {
  if (!schema) return '';
  if (schema['$ref']) return schemaLink(refName(String(schema['$ref'])));
  if (schema['enum']) return (schema['enum'] as unknown[]).map((v) => `<code>${esc(v)}</code>`).join(' | ');
  if (schema['type'] === 'array') return `array of ${typeHtml(schema['items'])}`;
  for (const key of ['oneOf', 'anyOf'] as const) {
    if (Array.isArray(schema[key])) return (schema[key] as Json[]).map(typeHtml).join(' or ');
  }
  const parts = [esc(schema['type'] ?? 'any')];
  if (schema['format']) parts.push(`(${esc(schema['format'])})`);
  if (schema['minimum'] !== undefined || schema['maximum'] !== undefined) parts.push(`${esc(schema['minimum'] ?? '')}…${esc(schema['maximum'] ?? '')}`);
  if (schema['maxLength'] !== undefined) parts.push(`at most ${esc(schema['maxLength'])} characters`);
  return parts.join(' ');
}

function defaultHtml(schema: Json | undefined): string {
  return schema?.['default'] === undefined ? '' : `<code>${esc(JSON.stringify(schema['default']))}</code>`;
}

/** An example value for a schema: its own example, default or first choice, else one of its type. */
export function exampleOf(schema: Json | undefined, schemas: Json, depth = 0): unknown {
  const again = (inner: Json | undefined) => exampleOf(inner, schemas, depth + 1);
  if (!schema || depth > 6) return null;
  if (schema['$ref']) return again(schemas[refName(String(schema['$ref']))]);
  if (schema['example'] !== undefined) return schema['example'];
  if (schema['default'] !== undefined) return schema['default'];
  if (schema['enum']) return (schema['enum'] as unknown[])[0];
  for (const key of ['oneOf', 'anyOf'] as const) if (Array.isArray(schema[key])) return again(schema[key][0]);
  switch (schema['type']) {
    case 'object': {
      const out: Json = {};
      for (const [name, property] of Object.entries((schema['properties'] ?? {}) as Record<string, Json>)) out[name] = again(property);
      return out;
    }
    case 'array':
      return [again(schema['items'])];
    case 'integer':
    case 'number':
      return schema['minimum'] ?? 0;
    case 'boolean':
      return true;
    case 'string':
      if (schema['format'] === 'uuid') return '6f1c2a4e-0000-4000-8000-000000000001';
      if (schema['format'] === 'date-time') return '2026-11-07T05:31:56Z';
      if (schema['format'] === 'uri') return `${String((schemas as Record<symbol, unknown>)[BASE_URL] ?? '')}/`;
      return 'string';
    default:
      return null;
  }
}

/** The document's own example (a real response, examples.ts), else one made from the schema. */
function exampleBlock(content: Json | undefined, schemas: Json): string {
  const schema = content?.['schema'];
  if (!schema) return '';
  const example = content['example'] !== undefined ? content['example'] : exampleOf(schema, schemas);
  return `<details><summary>Example</summary><pre>${esc(JSON.stringify(example, null, 2))}</pre></details>`;
}

function schemaTable(schema: Json): string {
  const props = (schema['properties'] ?? {}) as Record<string, Json>;
  const required = new Set((schema['required'] ?? []) as string[]);
  const rows = Object.entries(props).map(([name, p]) =>
    `<tr><td><code>${esc(name)}</code></td><td>${typeHtml(p)}</td><td>${required.has(name) ? 'yes' : ''}</td><td>${prose(p['description'])}</td></tr>`);
  return `<table><tr><th>field</th><th>type</th><th>required</th><th>notes</th></tr>${rows.join('')}</table>`;
}

function operationSection(path: string, method: string, op: Json, schemas: Json): string {
  const params = (op['parameters'] ?? []) as Json[];
  const paramRows = params.map((p) =>
    `<tr><td><code>${esc(p['name'])}</code></td><td>${esc(p['in'])}</td><td>${typeHtml(p['schema'])}</td><td>${defaultHtml(p['schema'])}</td><td>${p['required'] ? 'yes' : ''}</td><td>${prose(p['description'])}</td></tr>`);
  const bodyContent = op['requestBody']?.content?.['application/json'];
  const body = bodyContent?.schema;
  const responses = Object.entries(op['responses'] as Record<string, Json>).map(([status, r]) => {
    const [type, content] = Object.entries((r['content'] ?? {}) as Json)[0] ?? [];
    const schema = (content as Json | undefined)?.['schema'];
    const example = status.startsWith('2') && type === 'application/json' ? exampleBlock(content as Json, schemas) : '';
    return `<li><b>${esc(status)}</b> ${prose(r['description'])} ${schema ? typeHtml(schema) : ''}${example}</li>`;
  });
  return `<section id="${esc(op['operationId'])}"><h3><span class="m ${esc(method)}">${esc(method.toUpperCase())}</span> <code>${esc(path)}</code></h3>
<p>${prose(op['summary'])}${op['description'] ? `<br><small>${prose(op['description'])}</small>` : ''}</p>
${paramRows.length ? `<table><tr><th>parameter</th><th>in</th><th>type</th><th>default</th><th>required</th><th>notes</th></tr>${paramRows.join('')}</table>` : ''}
${body ? `<p>Body: ${typeHtml(body)}</p>${exampleBlock(bodyContent, schemas)}` : ''}<ul>${responses.join('')}</ul></section>`;
}

export function renderDocsPage(doc: Json): string {
  const schemas = { ...(doc['components']?.schemas ?? {}), [BASE_URL]: String(doc['servers']?.[0]?.url ?? '').replace(/\/v1\.0\.0$/, '') } as Json;
  const byTag = new Map<string, string[]>();
  const toc = new Map<string, string[]>();
  for (const [path, methods] of Object.entries(doc['paths'] as Record<string, Json>)) {
    for (const [method, op] of Object.entries(methods as Record<string, Json>)) {
      const tag = String((op['tags'] as string[] | undefined)?.[0] ?? 'Other');
      if (!byTag.has(tag)) {
        byTag.set(tag, []);
        toc.set(tag, []);
      }
      byTag.get(tag)!.push(operationSection(path, method, op, schemas));
      toc.get(tag)!.push(`<li><a href="#${esc(op['operationId'])}"><span class="m ${esc(method)}">${esc(method.toUpperCase())}</span> <code>${esc(path)}</code></a></li>`);
    }
  }
  const tagId = (tag: string) => `tag-${tag.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
  const contents = [...toc].map(([tag, items]) => `<li><a href="#${tagId(tag)}">${esc(tag)}</a><ul>${items.join('')}</ul></li>`).join('');
  const operations = [...byTag].map(([tag, sections]) => `<h2 id="${tagId(tag)}">${esc(tag)}</h2>${sections.join('\n')}`).join('\n');
  const schemaSections = Object.entries(schemas as Record<string, Json>)
    .map(([name, s]) => `<section id="schema-${esc(name)}"><h3>${esc(name)}</h3>${s['properties'] ? schemaTable(s) : typeHtml(s)}</section>`);
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(doc['info']?.title)}</title><style>
body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#222}
h3{margin:1.5rem 0 .25rem}table{border-collapse:collapse;margin:.5rem 0}td,th{border:1px solid #ddd;padding:.2rem .5rem;text-align:left;vertical-align:top}
.m{display:inline-block;min-width:4.5rem;text-align:center;border-radius:4px;color:#fff;font-size:.8rem;padding:.1rem .3rem}
.get{background:#1864ab}.post{background:#2b8a3e}.delete{background:#c92a2a}code{background:#f3f3f3;padding:0 .2rem}
nav ul{list-style:none;padding-left:1rem}pre{background:#f3f3f3;padding:.5rem;overflow:auto}a{color:#1864ab}
@media (prefers-color-scheme: dark){body{background:#111;color:#ddd}code,pre{background:#222}td,th{border-color:#444}a{color:#74c0fc}}
</style></head><body><h1>${esc(doc['info']?.title)} ${esc(doc['info']?.version)}</h1><p>${prose(doc['info']?.description)}</p>
<p>Base address: <code>${esc(doc['servers']?.[0]?.url)}</code>. Every request carries the key in <code>X-API-KEY</code>. Machine-readable: <code>GET /v1.0.0/openapi.json</code> (with your key).</p>
<nav><h2>Contents</h2><ul>${contents}<li><a href="#schemas">Schemas</a><ul>${Object.keys(schemas).map((name) => `<li>${schemaLink(name)}</li>`).join('')}</ul></li></ul></nav>
${operations}<h2 id="schemas">Schemas</h2>${schemaSections.join('\n')}</body></html>`;
}
