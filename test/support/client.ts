import createClient from 'openapi-fetch';
import type { paths } from '../generated/openapi.js';
import { baseUrl, keyHeaders, type KeyChoice, type Workspace } from './api.js';

/**
 * The REST client typed from the published OpenAPI document: a test that calls a path, a
 * parameter or a field the document lacks stops compiling, so document and server cannot drift.
 */
export function restClient(ws: Workspace, key: KeyChoice = {}) {
  return createClient<paths>({ baseUrl: baseUrl(), headers: keyHeaders(ws, key) });
}
