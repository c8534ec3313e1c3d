// The docs page of GET /v0/docs: Scalar's API reference (@scalar/api-reference, its standalone
// browser bundle served from our own node_modules at /v0/docs/scalar.js, no CDN) rendering
// /v0/openapi.json: the operations by tag with their parameters, bodies, examples and error
// responses, the error table of the document's description, then the schemas. Scalar's calls out
// (fonts, its request proxy and client, telemetry, its agent) are turned off, and the page's
// Content-Security-Policy allows this origin only.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { gzip } from 'node:zlib';
import { promisify } from 'node:util';
import { BASE_PATH } from './route.js';

export const DOCS_SCRIPT_PATH = `${BASE_PATH}/docs/scalar.js`;

const CONFIGURATION = {
  url: `${BASE_PATH}/openapi.json`,
  withDefaultFonts: false,
  telemetry: false,
  hideClientButton: true,
  hideTestRequestButton: true,
  showDeveloperTools: 'never',
  agent: { disabled: true },
  mcp: { disabled: true },
  defaultOpenAllTags: true,
  documentDownloadType: 'json',
};

const escapeAttribute = (text: string) => text.replace(/&/g, '&amp;').replace(/'/g, '&#39;').replace(/</g, '&lt;');

const DOCS_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Commerce API v0</title>
<link rel="icon" href="data:,">
</head>
<body>
<noscript>This page renders the document with JavaScript; without it, read <a href="${BASE_PATH}/openapi.json">${BASE_PATH}/openapi.json</a> (OpenAPI 3.1).</noscript>
<script id="api-reference" data-url="${BASE_PATH}/openapi.json" data-configuration='${escapeAttribute(JSON.stringify(CONFIGURATION))}'></script>
<script src="${DOCS_SCRIPT_PATH}"></script>
</body>
</html>
`;

/** The headers of the page: only this origin's script, styles Scalar sets inline, no framing. */
export const DOCS_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; font-src 'self' data:; connect-src 'self'; worker-src 'self' blob:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  'x-content-type-options': 'nosniff',
  'cache-control': 'no-cache',
};

export function docsHtml(): string {
  return DOCS_HTML;
}

/** Scalar's standalone bundle, gzipped once (about 4 MB, 1 MB gzipped). */
let script: Promise<{ plain: Uint8Array<ArrayBuffer>; gzipped: Uint8Array<ArrayBuffer> }> | undefined;

function loadScript() {
  script ??= (async () => {
    // The package's main entry is dist/index.js; the browser bundle sits beside it.
    const entry = createRequire(import.meta.url).resolve('@scalar/api-reference');
    const plain = new Uint8Array(await readFile(path.join(path.dirname(entry), 'browser', 'standalone.js')));
    return { plain, gzipped: new Uint8Array(await promisify(gzip)(plain)) };
  })();
  return script;
}

/** The renderer's script, gzipped for a client that accepts it. */
export async function docsScript(acceptEncoding: string | null): Promise<{ body: Uint8Array<ArrayBuffer>; headers: Record<string, string> }> {
  const { plain, gzipped } = await loadScript();
  const headers = { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'public, max-age=3600', 'x-content-type-options': 'nosniff', vary: 'accept-encoding' };
  return /\bgzip\b/.test(acceptEncoding ?? '') ? { body: gzipped, headers: { ...headers, 'content-encoding': 'gzip' } } : { body: plain, headers };
}
