// The docs page of GET /v0/docs: the operations by tag, their parameters, bodies, answers and
// errors, then the schemas.

/** The docs page: self-contained (no CDN); it renders /v0/openapi.json in the browser. */
export function docsHtml(): string {
  return DOCS_HTML;
}

const DOCS_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Commerce API v0</title>
<style>
body { font: 15px/1.5 system-ui, sans-serif; margin: 0 auto; max-width: 72rem; padding: 1rem 2rem; color: #1b1b1b; }
code, pre { font: 13px/1.4 ui-monospace, monospace; }
pre { background: #f5f5f5; padding: .5rem; overflow-x: auto; }
h2 { border-bottom: 1px solid #ddd; margin-top: 2rem; }
details.op { border: 1px solid #ddd; border-radius: 4px; margin: .4rem 0; }
details.op > summary { cursor: pointer; padding: .4rem .6rem; list-style: none; }
details.op > div { padding: 0 .8rem .6rem; }
.method { display: inline-block; min-width: 4rem; font-weight: 600; }
.GET { color: #0a6; } .POST { color: #06c; } .PATCH { color: #a60; }
table { border-collapse: collapse; margin: .3rem 0; }
td, th { border: 1px solid #ddd; padding: .2rem .5rem; text-align: left; vertical-align: top; }
.muted { color: #666; }
</style>
</head>
<body>
<h1>Commerce API v0</h1>
<p>The machine-readable document: <a href="/v0/openapi.json">/v0/openapi.json</a> (OpenAPI 3.0).</p>
<div id="intro"></div>
<div id="operations"><noscript>This page renders the document with JavaScript; without it, read <a href="/v0/openapi.json">/v0/openapi.json</a>.</noscript></div>
<div id="schemas"></div>
<script>
(async () => {
  const doc = await (await fetch('/v0/openapi.json')).json();
  const el = (tag, attrs = {}, ...children) => {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    for (const child of children) node.append(child);
    return node;
  };
  const resolve = (value) => {
    while (value && value.$ref) value = value.$ref.split('/').slice(1).reduce((o, k) => o[k], doc);
    return value;
  };
  const typeName = (schema) => {
    if (!schema) return 'any';
    let name;
    if (schema.$ref) name = schema.$ref.split('/').pop();
    else if (schema.allOf) name = schema.allOf.map(typeName).join(' & ');
    else if (schema.oneOf) name = schema.oneOf.map(typeName).join(' | ');
    else if (schema.type === 'array') name = typeName(schema.items) + '[]';
    else if (schema.enum) name = schema.enum.map((v) => JSON.stringify(v)).join(' | ');
    else name = schema.type ? schema.type + (schema.format ? ' (' + schema.format + ')' : '') : 'any';
    return schema.nullable ? name + ' | null' : name;
  };
  const link = (schema) => {
    const name = typeName(schema);
    const target = schema && (schema.$ref || (schema.items && schema.items.$ref) || (schema.allOf && schema.allOf[0].$ref));
    return target ? el('a', { href: '#schema-' + target.split('/').pop() }, name) : el('code', {}, name);
  };
  const fieldsTable = (schema) => {
    const table = el('table', {}, el('tr', {}, el('th', {}, 'field'), el('th', {}, 'type'), el('th', {}, 'required'), el('th', {}, 'description')));
    const required = new Set(schema.required || []);
    for (const [name, prop] of Object.entries(schema.properties || {})) {
      table.append(el('tr', {}, el('td', {}, el('code', {}, name)), el('td', {}, link(prop)), el('td', {}, required.has(name) ? 'yes' : ''), el('td', {}, prop.description || '')));
    }
    return table;
  };
  document.getElementById('intro').append(el('p', {}, doc.info.description));
  const operations = document.getElementById('operations');
  operations.textContent = '';
  for (const tag of doc.tags) {
    operations.append(el('h2', {}, tag.name));
    if (tag.description) operations.append(el('p', {}, tag.description));
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        if (!op.tags.includes(tag.name)) continue;
        const body = el('div');
        if (op.description) body.append(el('p', {}, op.description));
        const keys = Object.keys(op.security[0]).map((s) => doc.components.securitySchemes[s].name).join(' + ');
        body.append(el('p', { class: 'muted' }, 'Headers: ' + keys + '. Operation id: ' + op.operationId));
        if (op.parameters) {
          const table = el('table', {}, el('tr', {}, el('th', {}, 'parameter'), el('th', {}, 'in'), el('th', {}, 'type'), el('th', {}, 'required'), el('th', {}, 'description')));
          for (const p of op.parameters) table.append(el('tr', {}, el('td', {}, el('code', {}, p.name)), el('td', {}, p.in), el('td', {}, link(p.schema)), el('td', {}, p.required ? 'yes' : ''), el('td', {}, p.description || '')));
          body.append(el('h4', {}, 'Parameters'), table);
        }
        if (op.requestBody) body.append(el('h4', {}, 'JSON body'), fieldsTable(op.requestBody.content['application/json'].schema));
        const data = op.responses['200'].content['application/json'].schema.properties.data;
        body.append(el('h4', {}, '200: {status: "success", data}'), resolve(data).properties ? fieldsTable(resolve(data)) : link(data));
        const errors = Object.keys(op.responses).filter((s) => s !== '200').map((s) => s + ' ' + resolve(op.responses[s]).description);
        body.append(el('h4', {}, 'Errors: {status: "error", error: {message}}'), el('ul', {}, ...errors.map((e) => el('li', {}, e))));
        operations.append(el('details', { class: 'op' }, el('summary', {}, el('span', { class: 'method ' + method.toUpperCase() }, method.toUpperCase()), el('code', {}, path), ' ', op.summary), body));
      }
    }
  }
  const schemas = document.getElementById('schemas');
  schemas.append(el('h2', {}, 'Schemas'));
  for (const [name, schema] of Object.entries(doc.components.schemas)) {
    schemas.append(el('h3', { id: 'schema-' + name }, name));
    if (schema.description) schemas.append(el('p', {}, schema.description));
    schemas.append(schema.properties ? fieldsTable(schema) : el('pre', {}, JSON.stringify(schema, null, 2)));
  }
})();
</script>
</body>
</html>
`;
