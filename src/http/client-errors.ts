import { STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { logger } from '../logger.js';
import { errorBody } from '../rest/envelope.js';
import { requestIdFor } from './request-id.js';

// Node answers some requests itself, before the app sees them: one it cannot parse (clientError:
// headers or URL too large, bytes that are not HTTP, a NUL in a header, a request that takes too
// long), an Expect other than 100-continue, a CONNECT. Those answers get the envelope and an
// x-request-id like every other response, and the connection closes after them.

/** Statuses of Node's parser errors; any other parse error is a 400. */
const PARSER_ERRORS: Record<string, [status: number, message: string]> = {
  HPE_HEADER_OVERFLOW: [431, 'The request line and headers are too large'],
  HPE_CHUNK_EXTENSIONS_OVERFLOW: [413, 'The chunk extensions of the request body are too large'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'The request did not arrive in time'],
};

/** How long a refused connection may keep sending before it is cut. */
const LINGER_MS = 2_000;

function rawResponse(status: number, message: string, requestId: string, extraHeaders: string[] = []): string {
  const body = errorBody(message);
  return [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`,
    'content-type: application/json; charset=utf-8',
    `content-length: ${Buffer.byteLength(body)}`,
    `x-request-id: ${requestId}`,
    ...extraHeaders,
    'connection: close',
    '',
    body,
  ].join('\r\n');
}

/**
 * Writes the answer and closes the connection. What the client still sends is read and dropped
 * for a moment: closing with unread bytes would reset the connection and could destroy the
 * answer before the client reads it.
 */
function answerAndClose(socket: Duplex, response: string): void {
  socket.end(response);
  socket.on('data', () => undefined);
  setTimeout(() => socket.destroy(), LINGER_MS).unref();
}

/** The response a socket is still sending (Node's own bookkeeping): raw bytes must not be mixed into it. */
const responseInProgress = (socket: Duplex) => (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage ?? undefined;

export function answerNodeErrors(server: Server): void {
  const answered = new WeakSet<Duplex>();

  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    // Already answered: the parser reports each later chunk of the same connection again.
    if (answered.has(socket)) return;
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    answered.add(socket);
    const [status, message] = PARSER_ERRORS[error.code ?? ''] ?? [400, 'The request is not valid HTTP/1.1'];
    const requestId = requestIdFor(undefined);
    // The code only: the raw packet may hold a key header.
    logger.info({ requestId, status, code: error.code }, 'request refused by the HTTP parser');
    const answer = () => answerAndClose(socket, rawResponse(status, message, requestId));
    // A bad request pipelined behind a good one is answered after the good one's response.
    const pending = responseInProgress(socket);
    if (pending && !pending.writableFinished) pending.once('finish', answer);
    else answer();
  });

  server.on('checkExpectation', (request: IncomingMessage, response) => {
    const requestId = requestIdFor(request.headers['x-request-id'] as string | undefined);
    response.writeHead(417, { 'content-type': 'application/json; charset=utf-8', 'x-request-id': requestId, connection: 'close' });
    response.end(errorBody('Only "Expect: 100-continue" is supported'));
  });

  server.on('connect', (request: IncomingMessage, socket: Duplex) => {
    const requestId = requestIdFor(request.headers['x-request-id'] as string | undefined);
    answerAndClose(socket, rawResponse(405, 'Method CONNECT is not allowed', requestId, ['allow: GET, POST, PATCH']));
  });
}
