import type { ErrorStatus } from '../errors.js';

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8' };

/** The JSON of the spec's failure envelope. */
export const errorBody = (message: string) => JSON.stringify({ status: 'error', error: { message } });

/** The spec's failure envelope: clients branch on the status; the message is for people. */
export function errorResponse(status: ErrorStatus, message: string, headers: Record<string, string> = {}): Response {
  return new Response(errorBody(message), {
    status,
    headers: { ...JSON_HEADERS, ...headers },
  });
}

export function successResponse(data: unknown, status = 200): Response {
  return new Response(JSON.stringify({ status: 'success', data }), { status, headers: JSON_HEADERS });
}
