// What the limits test files share: their helpers, fixtures and suite-wide state (the suite is
// split along its describe blocks, each file under 400 lines).
import { baseUrl, keyHeaders, newWorkspace, type Workspace } from './api.js';
import { operationAt, readDocument, responseProblems, type OpenApi } from './openapi.js';
import { useSuiteDatabase } from './responses.js';

// Hostile input through the real server: body size, nesting, encodings and content types, the
// maximum length of every string, GraphQL document limits, and the answers Node's HTTP parser
// gives before the app runs. Every REST answer is checked against the published document.

export const MIB = 1_048_576;
export const db = useSuiteDatabase();
export let ws: Workspace;
export let document: OpenApi;

beforeAll(async () => {
  [ws, document] = await Promise.all([newWorkspace('Hostile input'), readDocument()]);
});

export interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

/** A request with any body (bytes included) and the keys of the test workspace unless told otherwise. */
export async function send(method: string, path: string, options: { body?: string | Buffer; contentType?: string | null; headers?: Record<string, string>; url?: string } = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...keyHeaders(ws), ...options.headers };
  if (options.contentType !== null) headers['content-type'] = options.contentType ?? 'application/json';
  const body = typeof options.body === 'string' || options.body === undefined ? options.body : new Uint8Array(options.body);
  const response = await fetch(`${options.url ?? baseUrl()}${path}`, { method, headers, body });
  const text = await response.text();
  try {
    return { status: response.status, headers: response.headers, body: JSON.parse(text) };
  } catch {
    // Stays text: the assertion shows it.
    return { status: response.status, headers: response.headers, body: text };
  }
}

/** An error answer in the envelope, with a request id, as the document describes it for the operation. */
export function expectRefused(answer: Answer, status: number, method: string, path: string, message?: RegExp | string) {
  expect({ status: answer.status, body: answer.body }).toEqual({ status, body: { status: 'error', error: { message: expect.any(String) } } });
  expect(answer.headers.get('x-request-id')).toBeTruthy();
  if (message !== undefined) expect(answer.body.error.message).toMatch(message);
  if (path.startsWith('/v0/')) expect(responseProblems(document, operationAt(document, method, path.split('?')[0]!).operation, answer.status, answer.body)).toEqual([]);
}

export const productsNamed = async (name: string) => Number((await db.query('SELECT count(*) FROM "Product" WHERE name = $1', [name])).rows[0].count);
export const nested = (levels: number, leaf = '1') => `${'{"a":'.repeat(levels)}${leaf}${'}'.repeat(levels)}`;
export const productBody = (name: string, extra = '') => `{"name":${JSON.stringify(name)},"projectId":"${ws.projectId}","type":"Game"${extra}}`;
