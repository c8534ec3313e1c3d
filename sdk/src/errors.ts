// One error class per HTTP status of the API's failure envelope ({status: "error", error: {message}}).
// Every class carries the status, the envelope's message (human text: branch on the class or the
// status, not on the words) and the request id to quote to support.

export class CommerceApiError extends Error {
  override readonly name: string = 'CommerceApiError';
  constructor(
    readonly status: number,
    message: string,
    /** The x-request-id of the answer. */
    readonly requestId: string | null,
    /** The parsed body of the answer (the envelope), or its text when it was not JSON. */
    readonly body: unknown,
  ) {
    super(message);
  }
}

/** 400: validation failure, or not valid for the resource's current state. */
export class BadRequestError extends CommerceApiError {
  override readonly name = 'BadRequestError';
}
/** 401: key missing, malformed or invalid; a write without the secret key. */
export class AuthenticationError extends CommerceApiError {
  override readonly name = 'AuthenticationError';
}
/** 402: the payment was declined (the message says why). */
export class PaymentDeclinedError extends CommerceApiError {
  override readonly name = 'PaymentDeclinedError';
}
/** 403: the feature is not enabled for the workspace. */
export class PermissionDeniedError extends CommerceApiError {
  override readonly name = 'PermissionDeniedError';
}
/** 404: the resource does not exist in the workspace. */
export class NotFoundError extends CommerceApiError {
  override readonly name = 'NotFoundError';
}
/** 409: a limit of the account is reached, or the state conflicts. */
export class ConflictError extends CommerceApiError {
  override readonly name = 'ConflictError';
}
/** 413: the request body is larger than the server accepts. */
export class PayloadTooLargeError extends CommerceApiError {
  override readonly name = 'PayloadTooLargeError';
}
/** 415: the body is not JSON. */
export class UnsupportedMediaTypeError extends CommerceApiError {
  override readonly name = 'UnsupportedMediaTypeError';
}
/** 422: a well-formed request that cannot be fulfilled. */
export class UnprocessableEntityError extends CommerceApiError {
  override readonly name = 'UnprocessableEntityError';
}
/** 429: rate limited (after the client's own retries); retryAfter is the server's Retry-After in seconds. */
export class RateLimitError extends CommerceApiError {
  override readonly name = 'RateLimitError';
  constructor(status: number, message: string, requestId: string | null, body: unknown, readonly retryAfter: number | null) {
    super(status, message, requestId, body);
  }
}
/** 431: the request line and headers are too large. */
export class RequestHeaderFieldsTooLargeError extends CommerceApiError {
  override readonly name = 'RequestHeaderFieldsTooLargeError';
}
/** 500: the request did not complete (after the client's own retries). */
export class InternalServerError extends CommerceApiError {
  override readonly name = 'InternalServerError';
}
/** 503: a dependency did not answer (after the client's own retries). */
export class ServiceUnavailableError extends CommerceApiError {
  override readonly name = 'ServiceUnavailableError';
}

const BY_STATUS: Record<number, typeof CommerceApiError> = {
  400: BadRequestError,
  401: AuthenticationError,
  402: PaymentDeclinedError,
  403: PermissionDeniedError,
  404: NotFoundError,
  409: ConflictError,
  413: PayloadTooLargeError,
  415: UnsupportedMediaTypeError,
  422: UnprocessableEntityError,
  431: RequestHeaderFieldsTooLargeError,
  500: InternalServerError,
  503: ServiceUnavailableError,
};

/** The error of a failed answer: its class by status, the envelope's message. */
export async function errorOf(response: Response): Promise<CommerceApiError> {
  const text = await response.clone().text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON (a proxy's page): the text is the body.
  }
  const envelope = body as { error?: { message?: unknown } } | null;
  const message = typeof envelope?.error?.message === 'string' ? envelope.error.message : `HTTP ${response.status}`;
  const requestId = response.headers.get('x-request-id');
  if (response.status === 429) {
    const retryAfter = Number(response.headers.get('retry-after'));
    return new RateLimitError(429, message, requestId, body, Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : null);
  }
  const ErrorClass = BY_STATUS[response.status] ?? CommerceApiError;
  return new ErrorClass(response.status, message, requestId, body);
}
