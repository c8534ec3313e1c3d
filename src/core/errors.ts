// Named domain errors. Services throw these; they know nothing of HTTP or GraphQL. Each has a kind,
// and one table in the faces (src/errors.ts, `errorStatus`) maps a kind to its HTTP status, its
// GraphQL code and the envelope. Messages are for the caller: they never carry secrets.

export type ErrorKind = 'invalid' | 'unauthenticated' | 'payment_declined' | 'forbidden' | 'not_found' | 'conflict' | 'unprocessable' | 'rate_limited' | 'unavailable';

export abstract class DomainError extends Error {
  abstract readonly kind: ErrorKind;

  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** The input breaks a rule of the resource, or the request does not fit its current state. */
export class ValidationFailed extends DomainError {
  readonly kind = 'invalid';
}

/** The record does not exist in the caller's workspace and mode (archived records are hidden). */
export class NotFound extends DomainError {
  readonly kind = 'not_found';

  constructor(what: string) {
    super(`${what} not found`);
  }
}

/** The caller is not who may do this (missing, malformed or revoked keys). */
export class Unauthenticated extends DomainError {
  readonly kind = 'unauthenticated';
}

/** The processor refused the buyer's payment (a declined card); the message is the processor's reason, safe to show. */
export class PaymentDeclined extends DomainError {
  readonly kind = 'payment_declined';
}

/** Creating a product (or a copy of one) would pass the workspace's product limit. */
export class ProductLimitReached extends DomainError {
  readonly kind = 'conflict';

  constructor(readonly productLimit: number) {
    super(`The workspace's product limit (${productLimit}) is reached; archive a product or raise the limit`);
  }
}

/** A generated value (a slug) stayed taken after every retry. */
export class NoFreeValue extends DomainError {
  readonly kind = 'conflict';
}

/** Too many requests of a kind in a window (the download URL's 60 a minute per workspace); retryable after `retryAfterSeconds`. */
export class RateLimited extends DomainError {
  readonly kind = 'rate_limited';

  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

/** The feature is turned off for the workspace (a workspace setting). */
export class FeatureDisabled extends DomainError {
  readonly kind = 'forbidden';
}

/** A dependency (the processor) could not answer now: retrying later can succeed. */
export class TemporarilyUnavailable extends DomainError {
  readonly kind = 'unavailable';
}
