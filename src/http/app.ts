import type { IncomingMessage } from 'node:http';
import { createServerAdapter } from '@whatwg-node/server';
import type { GraphQLSchema } from 'graphql';
import type { GraphQLParams, Plugin, YogaServerInstance } from 'graphql-yoga';
import type { PrismaClient } from '../generated/prisma/client.js';
import type { Notifications } from '../db/notifications.js';
import type { TemporalConnection } from '../temporal/client.js';
import type { RateLimits } from '../core/rate-limits.js';
import type { PaymentProcessor } from '../payments/processors/processor.js';
import { ApiError } from '../errors.js';
import { noPrincipal, principalResolver, type Context } from '../graphql/context.js';
import { queryLimits } from '../graphql/query-limits.js';
import { logger } from '../logger.js';
import { routeArguments } from '../rest/arguments.js';
import { errorResponse, errorToResponse, successResponse } from '../rest/envelope.js';
import { createOperations } from '../rest/operations.js';
import { endpoints } from '../domains.js';
import { createRouter } from '../rest/router.js';
import { BASE_PATH, readAccess } from '../rest/route.js';
import { authenticate } from './auth.js';
import { readJsonObject, type BodyLimits } from './body.js';
import { endpointMatcher } from './endpoint.js';
import { requestIdFor } from './request-id.js';
import type { Metrics } from './metrics.js';
import { addressBucket, clientAddress, type TrustedProxies } from './client-address.js';
import type { RateLimiter } from './rate-limit.js';

export interface AppDependencies {
  prisma: PrismaClient;
  temporal: TemporalConnection;
  /** LISTEN/NOTIFY on the database, for resolvers that wait on another process's commit. */
  notifications: Notifications;
  /** The client schema: what /v0 exposes. */
  schema: GraphQLSchema;
  /** The same schema as a federation subgraph: what /graphql serves, built at its first request (src/graphql/schema.ts). */
  subgraphSchema: () => GraphQLSchema;
  metrics: Metrics;
  /** The edge limit per client IP. */
  rateLimiter: RateLimiter;
  /** The domains' budgets (on the same store as the edge limit), handed to resolvers in the context. */
  rateLimits: RateLimits;
  /** Which peers may name the client in x-forwarded-for (TRUST_PROXY). */
  trustedProxies: TrustedProxies;
  /** Extra routes outside /v0 (the OpenAPI document and docs page). */
  documents: {
    openApi: () => unknown;
    docsHtml: () => string;
    docsHeaders: Record<string, string>;
    /** The docs renderer's script (its path is docsScriptPath), for a client's Accept-Encoding. */
    docsScript: (acceptEncoding: string | null) => Promise<{ body: Uint8Array<ArrayBuffer>; headers: Record<string, string> }>;
    docsScriptPath: string;
  };
  /** Request bodies past this size are refused with 413 (MAX_BODY_BYTES). */
  maxBodyBytes: number;
  /** The card processor (PAYMENT_PROCESSOR): checkout charges through it, its webhooks come in at POST /processor-webhooks/{processor}. */
  processor: PaymentProcessor;
}

// Browsers may send only these headers cross-origin, and x-request-id stays unreadable to them.
const CORS_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, POST, PATCH',
  'access-control-allow-headers': 'content-type, idempotency-key, x-svc-public-key, x-svc-secret-key',
  'access-control-max-age': '600',
};

interface GraphqlServerContext {
  requestId: string;
  client: string;
  params?: GraphQLParams;
}

/** The GraphQL parameters of a POST /graphql, read under the same body rules as REST. */
async function graphqlParams(request: Request, limits: BodyLimits): Promise<GraphQLParams | undefined> {
  if (request.method !== 'POST') return undefined;
  const params = await readJsonObject(request, limits);
  if (!params) throw new ApiError(400, 'A GraphQL POST needs a JSON body such as {"query": "{ __typename }"}');
  return params as GraphQLParams;
}

/** The server's request handler; it derives each /v0 route's operation first (a fraction of a second). */
export async function createApp(deps: AppDependencies) {
  const { prisma, temporal, notifications, metrics, rateLimiter, rateLimits } = deps;
  const router = createRouter(deps.schema);
  const executeRoute = await createOperations(deps.schema);
  const { processor } = deps;
  const matchEndpoint = endpointMatcher(endpoints);

  // graphql-yoga is loaded on the first /graphql request: a REST-only process stays smaller.
  let yoga: Promise<YogaServerInstance<GraphqlServerContext, Context>> | undefined;
  const graphqlServer = () =>
    (yoga ??= import('graphql-yoga').then(({ createYoga }) =>
      createYoga<GraphqlServerContext, Context>({
        schema: deps.subgraphSchema(),
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
        context: ({ request, requestId, client }) => ({
          prisma,
          temporal,
          notifications,
          processor,
          rateLimits,
          requestId,
          client,
          origin: new URL(request.url).origin,
          idempotencyKey: request.headers.get('idempotency-key') ?? undefined,
          principal: principalResolver(() => authenticate(prisma, request.headers, 'read')),
        }),
      }),
    ));

  /** A /v0 or buyer request: route match, keys (none for buyer routes), arguments, execution, envelope. Answers are labelled with the route's pattern. */
  async function handleRest(request: Request, url: URL, requestId: string, client: string, limits: BodyLimits): Promise<{ response: Response; route: string }> {
    const matched = router.match(request.method, url.pathname);
    if (request.method === 'OPTIONS' && matched.kind !== 'not-found') return { response: successResponse({}, CORS_HEADERS), route: 'preflight' };
    if (matched.kind === 'not-found') return { response: errorResponse(404, `No route for ${request.method} ${url.pathname}`), route: 'unmatched' };
    if (matched.kind === 'wrong-method') {
      const allow = matched.allow.join(', ');
      return { response: errorResponse(405, `Method ${request.method} is not allowed here; use ${allow}`, { allow }), route: 'unmatched' };
    }
    const { route, pathValues } = matched;
    try {
      // Authentication comes first, so a bad request without keys still gets 401.
      const principal = route.audience === 'buyer' ? undefined : await authenticate(prisma, request.headers, readAccess(route) ? 'read' : 'write');
      // PostgreSQL text cannot hold U+0000: refused up front instead of failing in the database (%00 is its only spelling in a URL).
      if (/%00/.test(url.pathname + url.search)) throw new ApiError(400, 'The request contains a NUL character');
      const input = route.method === 'GET' ? { query: url.searchParams } : { body: (await readJsonObject(request, limits)) ?? {} };
      const args = routeArguments(route, pathValues, input);
      const context: Context = {
        prisma,
        temporal,
        notifications,
        processor,
        rateLimits,
        requestId,
        client,
        origin: url.origin,
        idempotencyKey: request.headers.get('idempotency-key') ?? undefined,
        principal: principal ? principalResolver(async () => principal) : noPrincipal,
      };
      return { response: successResponse(await executeRoute(route, args, context)), route: route.label };
    } catch (error) {
      return { response: errorToResponse(error, requestId), route: route.label };
    }
  }

  async function dispatch(request: Request, requestId: string, client: string, limits: BodyLimits): Promise<{ response: Response; route: string }> {
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
    const retryAfter = await rateLimiter.consume(client);
    if (retryAfter > 0) {
      return { response: errorResponse(429, 'Too many requests; retry later', { 'retry-after': String(retryAfter) }), route: 'rate-limited' };
    }
    if (pathname === `${BASE_PATH}/openapi.json` && request.method === 'GET') {
      return { response: Response.json(deps.documents.openApi()), route: pathname };
    }
    if (pathname === `${BASE_PATH}/docs` && request.method === 'GET') {
      return { response: new Response(deps.documents.docsHtml(), { headers: deps.documents.docsHeaders }), route: pathname };
    }
    if (pathname === deps.documents.docsScriptPath && request.method === 'GET') {
      const { body, headers } = await deps.documents.docsScript(request.headers.get('accept-encoding'));
      return { response: new Response(body, { headers }), route: pathname };
    }
    const endpoint = matchEndpoint(pathname);
    if (endpoint) {
      const { path, methods, handle } = endpoint.endpoint;
      if (!methods.includes(request.method as (typeof methods)[number])) {
        const allow = methods.join(', ');
        return { response: errorResponse(405, `Method ${request.method} is not allowed here; use ${allow}`, { allow }), route: path };
      }
      return { response: await handle({ request, url, params: endpoint.params, requestId, limits, prisma, temporal, processor, rateLimits, client }), route: path };
    }
    if (pathname === '/graphql') {
      const params = await graphqlParams(request, limits);
      return { response: await (await graphqlServer()).fetch(request, { requestId, client, params }), route: pathname };
    }
    // /v0 and the buyer routes; anything else is 404 there.
    return handleRest(request, url, requestId, client, limits);
  }

  return createServerAdapter<{ req?: IncomingMessage }>(async (request, serverContext) => {
    const started = performance.now();
    const requestId = requestIdFor(request.headers.get('x-request-id'));
    let result: { response: Response; route: string };
    try {
      const limits: BodyLimits = { maxBytes: deps.maxBodyBytes, cutConnection: () => serverContext.req?.socket.destroy() };
      const client = addressBucket(clientAddress(serverContext.req?.socket.remoteAddress, request.headers.get('x-forwarded-for'), deps.trustedProxies));
      result = await dispatch(request, requestId, client, limits);
    } catch (error) {
      const response = errorToResponse(error, requestId);
      result = { response, route: response.status >= 500 ? 'error' : 'rejected' };
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
