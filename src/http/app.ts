import type { IncomingMessage } from 'node:http';
import { createServerAdapter } from '@whatwg-node/server';
import type { GraphQLSchema } from 'graphql';
import type { GraphQLParams, Plugin, YogaServerInstance } from 'graphql-yoga';
import type { PrismaClient } from '../generated/prisma/client.js';
import type { TemporalConnection } from '../temporal/client.js';
import { ApiError } from '../errors.js';
import { principalResolver, type Context } from '../graphql/context.js';
import { queryLimits } from '../graphql/query-limits.js';
import { logger } from '../logger.js';
import { errorResponse } from '../rest/envelope.js';
import { BASE_PATH, checkBodyTypes, createRestApi, type RestContext } from '../rest/router.js';
import { authenticate } from './auth.js';
import { readJsonBody, type BodyLimits } from './body.js';
import { requestIdFor } from './request-id.js';
import type { Metrics } from './metrics.js';
import type { RateLimiter } from './rate-limit.js';

export interface AppDependencies {
  prisma: PrismaClient;
  temporal: TemporalConnection;
  /** The client schema: what /v0 exposes. */
  schema: GraphQLSchema;
  /** The same schema as a federation subgraph: what /graphql serves. */
  subgraphSchema: GraphQLSchema;
  metrics: Metrics;
  rateLimiter: RateLimiter;
  trustProxy: boolean;
  /** Extra routes outside /v0 (the OpenAPI document and docs page). */
  documents: { openApi: () => unknown; docsHtml: () => string };
  /** Request bodies past this size are refused with 413 (MAX_BODY_BYTES). */
  maxBodyBytes: number;
}

// Browsers may send only these headers cross-origin, and x-request-id stays unreadable to them.
const CORS_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, POST, PATCH',
  'access-control-allow-headers': 'content-type, x-svc-public-key, x-svc-secret-key',
  'access-control-max-age': '600',
};

interface GraphqlServerContext {
  requestId: string;
  params?: GraphQLParams;
}

function clientAddress(req: IncomingMessage | undefined, headers: Headers, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = headers.get('x-forwarded-for')?.split(',')[0]?.trim();
    if (forwarded) return forwarded;
  }
  return req?.socket.remoteAddress ?? 'unknown';
}

/** Whether a string anywhere in the query string holds U+0000. */
const queryHasNul = (query: URLSearchParams) => [...query].some(([name, value]) => name.includes('\0') || value.includes('\0'));

// PostgreSQL text cannot hold U+0000: refuse it up front instead of failing in the database.
const nulRejected = () => new ApiError(400, 'The request contains a NUL character');

/** A body that must be a JSON object when there is one. */
function jsonObject(body: unknown): Record<string, unknown> | undefined {
  if (body === undefined) return undefined;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new ApiError(400, 'Request body must be a JSON object');
  return body as Record<string, unknown>;
}

/** The GraphQL parameters of a POST /graphql, read under the same body rules as REST. */
async function graphqlParams(request: Request, limits: BodyLimits): Promise<GraphQLParams | undefined> {
  if (request.method !== 'POST') return undefined;
  const params = jsonObject(await readJsonBody(request, limits));
  if (!params) throw new ApiError(400, 'A GraphQL POST needs a JSON body such as {"query": "{ __typename }"}');
  return params as GraphQLParams;
}

export function createApp(deps: AppDependencies) {
  const { prisma, temporal, metrics, rateLimiter } = deps;
  const rest = createRestApi(deps.schema);

  // graphql-yoga is loaded on the first /graphql request: a REST-only process stays smaller.
  let yoga: Promise<YogaServerInstance<GraphqlServerContext, Context>> | undefined;
  const graphqlServer = () =>
    (yoga ??= import('graphql-yoga').then(({ createYoga }) =>
      createYoga<GraphqlServerContext, Context>({
        schema: deps.subgraphSchema,
        graphqlEndpoint: '/graphql',
        logging: false,
        landingPage: false,
        plugins: [
          // A POST's body is already read and checked (graphqlParams): yoga takes it from there.
          {
            onRequestParse: ({ serverContext, setRequestParser }) => {
              const { params } = serverContext;
              if (params) setRequestParser(() => params);
            },
          } satisfies Plugin<object, GraphqlServerContext>,
          queryLimits(),
        ],
        context: ({ request, requestId }) => ({
          prisma,
          temporal,
          requestId,
          principal: principalResolver(() => authenticate(prisma, request.headers, 'read')),
        }),
      }),
    ));

  async function handleRest(request: Request, url: URL, requestId: string, limits: BodyLimits): Promise<{ response: Response; route: string }> {
    const matched = rest.match(request.method, url.pathname);
    if (request.method === 'OPTIONS' && matched.kind !== 'not-found') {
      return { response: new Response(JSON.stringify({ status: 'success', data: {} }), { headers: { ...CORS_HEADERS, 'content-type': 'application/json' } }), route: 'preflight' };
    }
    if (matched.kind === 'not-found') return { response: errorResponse(404, `No route for ${request.method} ${url.pathname}`), route: 'unmatched' };
    if (matched.kind === 'wrong-method') {
      return {
        response: errorResponse(405, `Method ${request.method} is not allowed here; use ${matched.allow.join(', ')}`, { allow: matched.allow.join(', ') }),
        route: 'unmatched',
      };
    }
    const { route } = matched;
    const routeLabel = `${BASE_PATH}${route.path}`;
    // Authentication comes first, so a bad request without keys still gets 401.
    const principal = await authenticate(prisma, request.headers, request.method === 'GET' ? 'read' : 'write');
    if (/%00/.test(url.pathname) || queryHasNul(url.searchParams)) throw nulRejected();
    const isRead = request.method === 'GET';
    let body: Record<string, unknown> = {};
    if (!isRead) {
      body = jsonObject(await readJsonBody(request, limits)) ?? {};
      // The path names the record: a body field repeating a path parameter is ignored like any unknown field.
      for (const name of route.pathParams) delete body[name];
      checkBodyTypes(body, route.args);
    }
    const context: RestContext = {
      prisma,
      temporal,
      requestId,
      // A write takes its arguments from the path and the JSON body only: SOFA would let the
      // query string override body fields, loosely typed.
      rawQuery: isRead ? url.searchParams : new URLSearchParams(),
      rawBody: body,
      principal: principalResolver(async () => principal),
    };
    const response = await rest.handle(matched, url, context);
    return { response, route: routeLabel };
  }

  async function dispatch(request: Request, requestId: string, address: string, limits: BodyLimits): Promise<{ response: Response; route: string }> {
    const url = new URL(request.url);
    const { pathname } = url;
    if (pathname === '/healthz') return { response: Response.json({ status: 'ok' }), route: pathname };
    if (pathname === '/readyz') {
      try {
        await prisma.$queryRaw`SELECT 1`;
        return { response: Response.json({ status: 'ok' }), route: pathname };
      } catch {
        return { response: Response.json({ status: 'unavailable' }, { status: 503 }), route: pathname };
      }
    }
    if (pathname === '/metrics') {
      return { response: new Response(await metrics.render(), { headers: { 'content-type': metrics.contentType } }), route: pathname };
    }
    const retryAfter = await rateLimiter.consume(address);
    if (retryAfter > 0) {
      return { response: errorResponse(429, 'Too many requests; retry later', { 'retry-after': String(retryAfter) }), route: 'rate-limited' };
    }
    if (pathname === `${BASE_PATH}/openapi.json` && request.method === 'GET') {
      return { response: Response.json(deps.documents.openApi()), route: pathname };
    }
    if (pathname === `${BASE_PATH}/docs` && request.method === 'GET') {
      return { response: new Response(deps.documents.docsHtml(), { headers: { 'content-type': 'text/html; charset=utf-8' } }), route: pathname };
    }
    if (pathname === BASE_PATH || pathname.startsWith(`${BASE_PATH}/`)) return handleRest(request, url, requestId, limits);
    if (pathname === '/graphql') {
      const params = await graphqlParams(request, limits);
      return { response: await (await graphqlServer()).fetch(request, { requestId, params }), route: pathname };
    }
    return { response: errorResponse(404, `No route for ${request.method} ${pathname}`), route: 'unmatched' };
  }

  return createServerAdapter<{ req?: IncomingMessage }>(async (request, serverContext) => {
    const started = performance.now();
    const requestId = requestIdFor(request.headers.get('x-request-id'));
    let result: { response: Response; route: string };
    try {
      const limits: BodyLimits = { maxBytes: deps.maxBodyBytes, cutConnection: () => serverContext.req?.socket.destroy() };
      result = await dispatch(request, requestId, clientAddress(serverContext.req, request.headers, deps.trustProxy), limits);
    } catch (error) {
      if (error instanceof ApiError) {
        result = { response: errorResponse(error.status, error.message), route: 'rejected' };
      } else {
        logger.error({ err: error, requestId }, 'unhandled error');
        result = { response: errorResponse(500, 'Internal server error'), route: 'error' };
      }
    }
    const { response, route } = result;
    response.headers.set('x-request-id', requestId);
    if (request.headers.has('origin')) {
      response.headers.set('access-control-allow-origin', '*');
    }
    const seconds = (performance.now() - started) / 1000;
    metrics.observe(request.method, route, response.status, seconds);
    logger.info({ requestId, method: request.method, route, status: response.status, ms: Math.round(seconds * 1000) }, 'request');
    return response;
  });
}
