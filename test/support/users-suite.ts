// What the users test files share: their helpers, fixtures and suite-wide state (the suite is
// split along its describe blocks, each file under 400 lines).
import { randomUUID } from 'node:crypto';
import { type Workspace } from './api.js';
import type { operations } from '../generated/openapi.js';
import { restClient } from './client.js';
import { useSuiteDatabase } from './responses.js';

export type CreateUserBody = operations['createUser']['requestBody']['content']['application/json'];

export const PASSWORD = 'correct horse battery staple';

/** Direct database access, for reading stored state. */
export const db = useSuiteDatabase();

export const createUser = (ws: Workspace, body: CreateUserBody, key = {}) => restClient(ws, key).POST('/v0/users/create', { body });

export async function newUser(ws: Workspace, body: Partial<CreateUserBody> = {}, key = {}) {
  const { data, response } = await createUser(ws, { email: `${randomUUID()}@example.com`, ...body }, key);
  expect(response.status).toBe(200);
  return data!.data.user;
}
