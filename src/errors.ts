import { GraphQLError } from 'graphql';
import { DomainError, RateLimited, type ErrorKind } from './core/errors.js';
import { isDatabaseBusy } from './db/client.js';
import { logger } from './logger.js';

export type ErrorStatus = 400 | 401 | 402 | 403 | 404 | 405 | 409 | 410 | 413 | 415 | 416 | 422 | 429 | 500 | 503;

/**
 * An error whose message is safe to show to the caller, with the HTTP status the spec gives it. A
 * 429 carries the seconds to wait: a Retry-After header on /v0 (rest/envelope.ts) and on /graphql
 * (yoga sends `extensions.http.headers`), and `extensions.retryAfterSeconds` in the GraphQL error.
 */
export class ApiError extends GraphQLError {
  readonly status: ErrorStatus;
  readonly retryAfterSeconds?: number;

  constructor(status: ErrorStatus, message: string, options: { retryAfterSeconds?: number } = {}) {
    const { retryAfterSeconds } = options;
    const retry = retryAfterSeconds === undefined ? undefined : { headers: { 'retry-after': String(retryAfterSeconds) } };
    super(message, { extensions: { code: codeFor(status), http: { status, ...retry }, ...(retry && { retryAfterSeconds }) } });
    this.status = status;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

function codeFor(status: ErrorStatus): string {
  switch (status) {
    case 400: return 'BAD_REQUEST';
    case 401: return 'UNAUTHENTICATED';
    case 402: return 'PAYMENT_DECLINED';
    case 403: return 'FORBIDDEN';
    case 404: return 'NOT_FOUND';
    case 405: return 'METHOD_NOT_ALLOWED';
    case 409: return 'CONFLICT';
    case 410: return 'GONE';
    case 413: return 'PAYLOAD_TOO_LARGE';
    case 415: return 'UNSUPPORTED_MEDIA_TYPE';
    case 416: return 'RANGE_NOT_SATISFIABLE';
    case 422: return 'UNPROCESSABLE';
    case 429: return 'RATE_LIMITED';
    case 503: return 'UNAVAILABLE';
    default: return 'INTERNAL_SERVER_ERROR';
  }
}

/** The one mapping of a domain error's kind to the status the contract gives it. */
const STATUS_OF: Record<ErrorKind, ErrorStatus> = {
  invalid: 400,
  unauthenticated: 401,
  payment_declined: 402,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  unprocessable: 422,
  rate_limited: 429,
  unavailable: 503,
};

/**
 * A domain error as the API reports it (status, GraphQL code, message); a database too busy to
 * serve the request (its transaction rolled back) as a retryable 503, never a 500; other errors
 * unchanged.
 */
export function asApiError(error: unknown): unknown {
  if (error instanceof DomainError) return new ApiError(STATUS_OF[error.kind], error.message, error instanceof RateLimited ? { retryAfterSeconds: error.retryAfterSeconds } : {});
  if (isDatabaseBusy(error)) {
    logger.warn({ err: error }, 'database busy: answered 503');
    return new ApiError(503, 'The service is busy; nothing was changed. Retry with backoff');
  }
  return error;
}
