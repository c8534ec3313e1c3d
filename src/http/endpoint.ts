// An HTTP endpoint of a domain that is not a GraphQL-backed route: a page (the hosted checkout) or
// an ingress with its own body rules (a processor's signed webhooks). Each domain lists its own
// (module.ts); src/domains.ts assembles them and src/http/app.ts dispatches to them.
import type { RateLimits } from '../core/rate-limits.js';
import type { PrismaClient } from '../generated/prisma/client.js';
import type { PaymentProcessor } from '../payments/processors/processor.js';
import type { TemporalConnection } from '../temporal/client.js';
import type { BodyLimits } from './body.js';

export interface EndpointRequest {
  request: Request;
  url: URL;
  /** The path parameters by name, decoded (a malformed escape stays as sent). */
  params: Record<string, string>;
  requestId: string;
  limits: BodyLimits;
  prisma: PrismaClient;
  temporal: TemporalConnection;
  processor: PaymentProcessor;
  /** The domains' budgets, for an endpoint that spends one (the buyer portal's forms). */
  rateLimits: RateLimits;
  /** The client's address, as per-client budgets count it. */
  client: string;
}

/**
 * How the OpenAPI document describes an endpoint of the API (under /v0) whose body is not JSON
 * (src/rest/openapi.ts): its query parameters, its raw body and the components its answer holds.
 */
export interface EndpointOperation {
  operationId: string;
  summary: string;
  description: string;
  query: readonly { name: string; required: boolean; description: string; schema: Record<string, unknown> }[];
  body: { mediaType: string; description: string };
  /** The answer's data: property name -> component (a GraphQL type) name. */
  data: Record<string, string>;
  /** Error statuses beyond those of every write (400, 401, 413, 415, 429, 431, 500) and 404 for a path parameter. */
  errors?: readonly (403 | 409 | 422 | 503)[];
}

export interface HttpEndpoint {
  /** The path pattern, e.g. /checkout/:checkoutElementId; metrics label answers with it. */
  path: string;
  /** Other methods are 405 with Allow. */
  methods: readonly ('GET' | 'HEAD' | 'POST')[];
  handle(endpoint: EndpointRequest): Promise<Response>;
  /** An endpoint of the API (a write with both keys) is in the OpenAPI document. */
  operation?: EndpointOperation;
}

/** A path segment decoded; a malformed escape stays as it is (and names nothing). */
function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** The endpoint whose path a request's path matches, with its parameters. */
export function endpointMatcher(endpoints: readonly HttpEndpoint[]) {
  const compiled = endpoints.map((endpoint) => {
    const names: string[] = [];
    const source = endpoint.path
      .split('/')
      .map((segment) => {
        if (!segment.startsWith(':')) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        names.push(segment.slice(1));
        return '([^/]+)';
      })
      .join('/');
    return { endpoint, names, pattern: new RegExp(`^${source}$`) };
  });
  return (pathname: string): { endpoint: HttpEndpoint; params: Record<string, string> } | undefined => {
    for (const { endpoint, names, pattern } of compiled) {
      const values = pattern.exec(pathname);
      if (values) return { endpoint, params: Object.fromEntries(names.map((name, index) => [name, decodeSegment(values[index + 1]!)])) };
    }
    return undefined;
  };
}
