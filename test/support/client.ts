import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { print, type GraphQLFormattedError } from 'graphql';
import createClient from 'openapi-fetch';
import type { paths } from '../generated/openapi.js';
import { baseUrl, keyHeaders, type KeyChoice, type Workspace } from './api.js';
import { checkResponse } from './openapi.js';

/**
 * A client typed from the published OpenAPI document (a test that calls a path, a parameter or a
 * field the document lacks stops compiling, so document and server cannot drift), whose every
 * answer is checked against the document at run time too.
 */
function checkedClient(headers: Record<string, string>, url: string) {
  const client = createClient<paths>({ baseUrl: url, headers });
  // The request's body as sent, for the exchange recorder (test/support/recorder.ts).
  const sent = new WeakMap<Request, Promise<string>>();
  client.use({
    onRequest({ request }) {
      sent.set(request, request.clone().text());
      return undefined;
    },
    async onResponse({ request, response }) {
      const body: unknown = await response.clone().json().catch(() => undefined);
      const requestBody = (await sent.get(request)) || undefined;
      checkResponse(request.method, request.url, response.status, body, response.headers, requestBody);
      return undefined;
    },
  });
  return client;
}

/** The /v0 client with the workspace's keys, for the suite's server or the one at `url`. */
export const restClient = (ws: Workspace, key: KeyChoice = {}, url = baseUrl()) => checkedClient(keyHeaders(ws, key), url);

/**
 * The client for the buyer routes (the hosted checkout's JSON API under /checkout): no keys, as a
 * buyer's browser or a shop's own front end calls them; `headers` such as an Idempotency-Key.
 */
export const buyerClient = (headers: Record<string, string> = {}, url = baseUrl()) => checkedClient(headers, url);

export interface GraphQLResult<TData> {
  status: number;
  data?: TData | null;
  errors?: GraphQLFormattedError[];
}

/**
 * Runs typed documents (test/generated/graphql, from test/graphql/*.graphql) over HTTP with the
 * workspace's key headers (none when `ws` is null); `url` defaults to the server's /graphql.
 */
export function graphqlClient(ws: Workspace | null, key: KeyChoice = {}, url = `${baseUrl()}/graphql`) {
  const headers = { 'content-type': 'application/json', ...(ws ? keyHeaders(ws, key) : {}) };
  return async <TData, TVariables>(document: TypedDocumentNode<TData, TVariables>, variables: TVariables): Promise<GraphQLResult<TData>> => {
    const response = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ query: print(document), variables }) });
    const body = (await response.json()) as { data?: TData | null; errors?: GraphQLFormattedError[] };
    return { status: response.status, ...body };
  };
}
