// A readable, self-contained page of the API built from the OpenAPI document (no scripts, no
// assets from elsewhere: the gateway may have no internet).
type Json = Record<string, any>;

function esc(text: unknown): string {
  return String(text ?? '').replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

function typeOf(schema: Json | undefined): string {
  if (!schema) return '';
  if (schema['$ref']) return String(schema['$ref']).split('/').pop()!;
  if (schema['enum']) return (schema['enum'] as unknown[]).join(' | ');
  if (schema['type'] === 'array') return `array of ${typeOf(schema['items'])}`;
  const parts = [schema['type'] ?? 'any'];
  if (schema['format']) parts.push(`(${schema['format']})`);
  if (schema['minimum'] !== undefined || schema['maximum'] !== undefined) parts.push(`${schema['minimum'] ?? ''}…${schema['maximum'] ?? ''}`);
  if (schema['default'] !== undefined) parts.push(`default ${schema['default']}`);
  return parts.join(' ');
}

function schemaTable(schema: Json): string {
  const props = (schema['properties'] ?? {}) as Record<string, Json>;
  const required = new Set((schema['required'] ?? []) as string[]);
  const rows = Object.entries(props).map(([name, p]) =>
    `<tr><td><code>${esc(name)}</code></td><td>${esc(typeOf(p))}</td><td>${required.has(name) ? 'yes' : ''}</td><td>${esc(p['description'])}</td></tr>`);
  return `<table><tr><th>field</th><th>type</th><th>required</th><th>notes</th></tr>${rows.join('')}</table>`;
}

export function renderDocsPage(doc: Json): string {
  const ops: string[] = [];
  for (const [path, methods] of Object.entries(doc['paths'] as Record<string, Json>)) {
    for (const [method, op] of Object.entries(methods as Record<string, Json>)) {
      const params = (op['parameters'] ?? []) as Json[];
      const paramRows = params.map((p) =>
        `<tr><td><code>${esc(p['name'])}</code></td><td>${esc(p['in'])}</td><td>${esc(typeOf(p['schema']))}</td><td>${p['required'] ? 'yes' : ''}</td></tr>`);
      const body = op['requestBody']?.content?.['application/json']?.schema;
      const responses = Object.entries(op['responses'] as Record<string, Json>).map(([status, r]) =>
        `<li><b>${esc(status)}</b> ${esc(r['description'])} ${r['content'] ? `<code>${esc(typeOf(Object.values(r['content'] as Json)[0]?.schema))}</code>` : ''}</li>`);
      ops.push(`<section id="${esc(op['operationId'])}"><h3><span class="m ${esc(method)}">${esc(method.toUpperCase())}</span> <code>${esc(path)}</code></h3>
<p>${esc(op['summary'])}${op['description'] ? `<br><small>${esc(op['description'])}</small>` : ''}</p>
${paramRows.length ? `<table><tr><th>parameter</th><th>in</th><th>type</th><th>required</th></tr>${paramRows.join('')}</table>` : ''}
${body ? `<p>Body: <code>${esc(typeOf(body))}</code></p>` : ''}<ul>${responses.join('')}</ul></section>`);
    }
  }
  const schemas = Object.entries((doc['components']?.schemas ?? {}) as Record<string, Json>)
    .map(([name, s]) => `<section id="schema-${esc(name)}"><h3>${esc(name)}</h3>${s['properties'] ? schemaTable(s) : `<code>${esc(typeOf(s))}</code>`}</section>`);
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(doc['info']?.title)}</title><style>
body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#222}
h3{margin:1.5rem 0 .25rem}table{border-collapse:collapse;margin:.5rem 0}td,th{border:1px solid #ddd;padding:.2rem .5rem;text-align:left;vertical-align:top}
.m{display:inline-block;min-width:4.5rem;text-align:center;border-radius:4px;color:#fff;font-size:.8rem;padding:.1rem .3rem}
.get{background:#1864ab}.post{background:#2b8a3e}.delete{background:#c92a2a}code{background:#f3f3f3;padding:0 .2rem}
@media (prefers-color-scheme: dark){body{background:#111;color:#ddd}code{background:#222}td,th{border-color:#444}}
</style></head><body><h1>${esc(doc['info']?.title)} ${esc(doc['info']?.version)}</h1><p>${esc(doc['info']?.description)}</p>
<p>Base address: <code>${esc(doc['servers']?.[0]?.url)}</code>. Machine-readable: <code>GET /v1.0.0/openapi.json</code> (with your key).</p>
<h2>Operations</h2>${ops.join('\n')}<h2>Schemas</h2>${schemas.join('\n')}</body></html>`;
}
