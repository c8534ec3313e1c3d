import { createPrismaClient } from '../../src/db/client.js';
import type { PrismaClient } from '../../src/generated/prisma/client.js';
import { createWorkspace, setWorkspaceSettings } from '../../src/workspaces/service.js';
import { checkResponse } from './openapi.js';

export const baseUrl = () => {
  const url = process.env.TEST_BASE_URL;
  if (!url) throw new Error('TEST_BASE_URL is not set: run the suite through jest (global setup)');
  return url;
};

export interface Workspace {
  workspaceId: string;
  projectId: string;
  publicKey: string;
  secretKey: string;
  testPublicKey: string;
  testSecretKey: string;
}

// Workspaces are made with the admin CLI's own functions in the test process: a CLI start costs
// seconds (tens of seconds on a loaded machine), a transaction milliseconds. The CLI itself is
// tested in operations.test.ts.
let admin: PrismaClient | undefined;
const adminDb = () => (admin ??= createPrismaClient(process.env.DATABASE_URL!));
afterAll(async () => {
  await admin?.$disconnect();
  admin = undefined;
});

/** The workspaces this test file made on the suite's database: the money invariants check them after the file (test/support/money-invariants.ts). */
export const createdWorkspaces = new Set<string>();

/** A new workspace, as `cli workspace create` makes it, on the suite's database. */
export async function newWorkspace(name = 'Test workspace', settings: string[] = []): Promise<Workspace> {
  const workspace = await createWorkspace(adminDb(), name);
  createdWorkspaces.add(workspace.workspaceId);
  if (settings.length) await setWorkspaceSettings(adminDb(), workspace.workspaceId, settings);
  return workspace;
}

/** Sets workspace settings as `cli workspace set` does. */
export const setWorkspace = (workspaceId: string, ...settings: string[]) => setWorkspaceSettings(adminDb(), workspaceId, settings);

export type KeyChoice = { mode?: 'live' | 'test'; write?: boolean };

export function keyHeaders(ws: Workspace, { mode = 'live', write = true }: KeyChoice = {}): Record<string, string> {
  const headers: Record<string, string> = { 'x-svc-public-key': mode === 'live' ? ws.publicKey : ws.testPublicKey };
  if (write) headers['x-svc-secret-key'] = mode === 'live' ? ws.secretKey : ws.testSecretKey;
  return headers;
}

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

/** A raw call, for the malformed requests a typed client would not let us write; its answer must match the OpenAPI document. */
export async function raw(method: string, path: string, options: { headers?: Record<string, string>; body?: string; query?: string } = {}): Promise<ApiResponse> {
  const response = await fetch(`${baseUrl()}${path}${options.query ? `?${options.query}` : ''}`, {
    method,
    headers: { 'content-type': 'application/json', ...options.headers },
    body: options.body,
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Non-JSON bodies stay text so the assertion shows them.
  }
  checkResponse(method, path, response.status, body, response.headers, options.body);
  return { status: response.status, headers: response.headers, body };
}

export const call = (method: string, path: string, ws: Workspace, body?: unknown, key: KeyChoice = {}) =>
  raw(method, path, { headers: keyHeaders(ws, key), body: body === undefined ? undefined : JSON.stringify(body) });
