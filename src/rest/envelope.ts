// The spec's envelope, the one shape of every /v0 answer: {status: 'success', data} or
// {status: 'error', error: {message}}. Everything thrown while serving a request becomes its answer
// in one place, errorToResponse.
// Responses are @whatwg-node's own (the server adapter's): it writes their string bodies to the
// socket at once, where a global Response's body would be streamed.
import { Response } from '@whatwg-node/server';
import { GraphQLError } from 'graphql';
import { ApiError, asApiError, type ErrorStatus } from '../errors.js';
import { logger } from '../logger.js';

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8' };

/** The JSON of the spec's failure envelope. */
export const errorBody = (message: string) => JSON.stringify({ status: 'error', error: { message } });

/** The spec's failure envelope: clients branch on the status; the message is for people. */
export function errorResponse(status: ErrorStatus, message: string, headers: Record<string, string> = {}): Response {
  return new Response(errorBody(message), { status, headers: { ...JSON_HEADERS, ...headers } });
}

export function successResponse(data: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ status: 'success', data }), { headers: { ...JSON_HEADERS, ...headers } });
}

/** The error a GraphQL error wraps (a resolver's throw), or the error itself. */
const originalOf = (error: unknown) => (error instanceof GraphQLError && error.originalError ? error.originalError : error);

function statusOf(error: unknown): ErrorStatus {
  const original = originalOf(error);
  if (original instanceof ApiError) return original.status;
  if (error instanceof GraphQLError) {
    const http = (error.extensions?.http as { status?: number } | undefined)?.status;
    if (http && http >= 400 && http < 500) return http as ErrorStatus;
    // Errors without a path come from coercing the request's arguments: the caller's input.
    if (!error.path && (!error.originalError || error.originalError instanceof GraphQLError)) return 400;
  }
  return 500;
}

/**
 * The answer to anything thrown while serving a request: an ApiError (also when a resolver threw
 * it) keeps its status and message (a 429 its Retry-After), a GraphQL error about the arguments is a 400; anything else
 * is a 500 whose internals are logged with the request id, never sent.
 */
export function errorToResponse(thrown: unknown, requestId: string): Response {
  // Resolvers report domain errors as ApiErrors already (graphql/domain-errors.ts); one thrown on the way there is mapped here.
  const error = asApiError(thrown);
  const status = statusOf(error);
  // A 5xx thrown on purpose as an ApiError (e.g. 503 "retry later") is for the caller as it is.
  if (status >= 500 && !(originalOf(error) instanceof ApiError)) {
    logger.error({ err: originalOf(error), requestId }, 'unhandled error');
    return errorResponse(500, 'Internal server error');
  }
  const original = originalOf(error);
  const retryAfter = original instanceof ApiError && original.retryAfterSeconds !== undefined ? { 'retry-after': String(original.retryAfterSeconds) } : undefined;
  return errorResponse(status, error instanceof Error ? error.message : 'Bad request', retryAfter);
}
