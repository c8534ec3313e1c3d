// The card processor boundary: one interface that orders, payments, refunds and subscription
// renewals use, whichever processor is behind it (the embedded sandbox or Stripe). Plain types
// and errors only: no HTTP or GraphQL here, so workflows' activities and services can use it.
import { MAX_MONEY } from '../../core/money.js';

export type ProcessorName = 'sandbox' | 'stripe';

/** A card; a PayPal-type wallet (confirmed later, never cancelled through the API); a bank transfer (confirmed when the money arrives). */
export type PaymentMethodType = 'card' | 'paypal' | 'manual';

export interface CardDetails {
  number: string;
  expMonth: number;
  /** Four digits, or two (read as 20xx). */
  expYear: number;
  cvc: string;
}

export interface ChargeRequest {
  /** Our payment's id: the processor keeps it in its metadata, so its events name the payment. */
  paymentId: string;
  /** From chargeIdempotencyKey(paymentId, attempt): a retried activity gets the same charge back, never a second one. */
  idempotencyKey: string;
  /** Integer minor units of `currency`, above 0. */
  amount: number;
  /** Three-letter ISO code, any case. */
  currency: string;
  method: PaymentMethodType;
  /** For method 'card': the card's details, or `paymentMethod`, or `savedPaymentMethod` (exactly one). */
  card?: CardDetails;
  /** A payment method the buyer's browser tokenized (Stripe.js's pm_…, the sandbox's pm_sbx_tok_…): no card details on our side. */
  paymentMethod?: string;
  /** A `paymentMethod.ref` returned earlier with savePaymentMethod: charged off-session (subscription renewals). */
  savedPaymentMethod?: string;
  /** Keep the card for later off-session charges; the result's paymentMethod.ref names it. */
  savePaymentMethod?: boolean;
  email: string;
  livemode: boolean;
  metadata?: Record<string, string>;
  /**
   * The caller retries the charge itself and checks the key's window before each try (a renewal's
   * activity): one call to the processor per try, none of its client's own retries, which could
   * land past that window.
   */
  oneCallPerTry?: boolean;
}

/** A card saved for later off-session charges without charging it (a trial): Stripe's SetupIntent. */
export interface SetupRequest {
  /** Derived from our record (the trial's payment): a retried call gets the same setup back. */
  idempotencyKey: string;
  /** The card's details, or `paymentMethod` (exactly one). */
  card?: CardDetails;
  /** A payment method the buyer's browser tokenized (Stripe.js's pm_…, the sandbox's pm_sbx_tok_…). */
  paymentMethod?: string;
  email: string;
  livemode: boolean;
  metadata?: Record<string, string>;
  /** The buyer is on a page and can authenticate now: a card that needs 3-D Secure answers requires_action instead of failing. */
  buyerPresent?: boolean;
}

/**
 * succeeded with the saved method's ref (usable as savedPaymentMethod), failed with the decline,
 * or (buyerPresent only) requires_action: the buyer authenticates with nextAction, then setupState
 * tells the outcome.
 */
export type SetupResult =
  | { status: 'succeeded'; paymentMethod: PaymentMethodInfo }
  | { status: 'failed'; failureCode: string; failureMessage: string }
  | { status: 'requires_action'; setupId: string; nextAction: NextAction };

export interface PaymentMethodInfo {
  /** Opaque processor reference; reusable as savedPaymentMethod when it was saved. */
  ref: string;
  brand?: string;
  last4?: string;
}

/** A cancelled charge reads as 'failed' with failureCode 'cancelled' (a replayed createCharge reports the charge as it is now). */
export type ChargeStatus = 'succeeded' | 'pending' | 'failed';

export interface ChargeResult {
  chargeId: string;
  status: ChargeStatus;
  /** Decline code ('generic_decline', 'insufficient_funds', 'expired_card', …) when failed. */
  failureCode?: string;
  failureMessage?: string;
  paymentMethod?: PaymentMethodInfo;
}

/**
 * What the buyer's browser needs to authenticate a pending card charge (3-D Secure): Stripe's
 * PaymentIntent client secret (stripe.handleNextAction), or the sandbox's own. Not a secret of
 * ours, but it lets its holder complete the charge: answered to the buyer, never stored or logged.
 */
export interface NextAction {
  clientSecret: string;
}

export interface RefundRequest {
  chargeId: string;
  /** Minor units; omitted: everything still refundable. */
  amount?: number;
  /** Derived from our refund record: the same key returns the same refund. */
  idempotencyKey: string;
  /** Our ids (refundId, paymentId, orderId), kept on the processor's refund so its events name them. */
  metadata?: Record<string, string>;
}

export type RefundStatus = 'succeeded' | 'pending' | 'failed';

export interface RefundResult {
  refundId: string;
  status: RefundStatus;
  amount: number;
}

/** A dispute is open while needs_response or under_review; the money is gone unless it is won. */
export type DisputeStatus = 'needs_response' | 'under_review' | 'won' | 'lost';

export interface DisputeInfo {
  disputeId: string;
  status: DisputeStatus;
  /** The processor's reason, e.g. 'fraudulent', 'product_not_received'. */
  reason: string;
  amount: number;
}

export interface ProcessorEventBase {
  /** The processor's event id: deliveries are at least once, deduplicate on it. */
  id: string;
  processor: ProcessorName;
  chargeId: string;
  /** Our payment id, when the processor's object carries it in its metadata. */
  paymentId: string | null;
  livemode: boolean;
  /** Unix milliseconds. */
  createdAt: number;
}

/** What a verified processor webhook tells the consumer, the same for every processor. */
export type ProcessorEvent = ProcessorEventBase &
  (
    | { type: 'charge.succeeded'; amount: number; currency: string }
    | { type: 'charge.pending' }
    | { type: 'charge.failed'; failureCode: string; failureMessage: string }
    | { type: 'charge.cancelled' }
    /**
     * refundId is null where the processor's event names only the charge (Stripe's charge.refunded);
     * ourRefundId is our refund's id when the processor's refund carries it in its metadata.
     */
    | { type: 'charge.refunded'; refundId: string | null; amountRefunded: number; fullyRefunded: boolean; ourRefundId?: string | null }
    | { type: 'refund.failed'; refundId: string; amount: number; failureCode: string; ourRefundId?: string | null }
    | { type: 'charge.disputed'; dispute: DisputeInfo }
    | { type: 'dispute.closed'; dispute: DisputeInfo }
  );

export type ProcessorEventType = ProcessorEvent['type'];

export type WebhookHeaders = Record<string, string | string[] | undefined>;

/** What the business rules need to know before asking the processor. */
export interface ProcessorCapabilities {
  /** The methods createCharge accepts. */
  methods: readonly PaymentMethodType[];
  /** Refunds through the API, per method (others are refunded outside: 400 for the API's refund). */
  refunds: Readonly<Record<PaymentMethodType, boolean>>;
  /** Cancelling a pending charge through the API, per method (never PayPal-type). */
  cancel: Readonly<Record<PaymentMethodType, boolean>>;
  /** savePaymentMethod and off-session charges with savedPaymentMethod. */
  savedPaymentMethods: boolean;
}

/** A span of creation times: since inclusive, until exclusive. */
export interface RecordWindow {
  since: Date;
  until: Date;
}

/** One charge as the processor's own books have it (what the reconciliation compares with ours). */
export interface ProcessorChargeRecord {
  chargeId: string;
  /** Our payment's id from the charge's metadata; null when it carries none. */
  paymentId: string | null;
  amount: number;
  /** Lower case, as processors keep it. */
  currency: string;
  status: 'succeeded' | 'pending' | 'failed' | 'cancelled';
  /** The decline's code and message when failed. */
  failureCode: string | null;
  failureMessage: string | null;
  createdAt: Date;
}

/** One refund as the processor's own books have it. */
export interface ProcessorRefundRecord {
  refundId: string;
  chargeId: string;
  amount: number;
  currency: string;
  status: 'succeeded' | 'pending' | 'failed' | 'canceled';
  failureCode: string | null;
  /** Our refund's and payment's ids from the refund's metadata (Stripe); null where the processor keeps none (the sandbox). */
  ourRefundId: string | null;
  paymentId: string | null;
  createdAt: Date;
}

export interface PaymentProcessor {
  readonly name: ProcessorName;
  readonly capabilities: ProcessorCapabilities;
  /** A declined card is a 'failed' result; CardDeclined is thrown when the card is refused before any charge exists. */
  createCharge(request: ChargeRequest): Promise<ChargeResult>;
  /** Saves a card for off-session charges with a zero-amount check instead of a charge (a trial's card). */
  setupPaymentMethod(request: SetupRequest): Promise<SetupResult>;
  /** A setup as it is now (one that answered requires_action: after the buyer's authentication). */
  setupState(setupId: string): Promise<SetupResult>;
  /** The buyer's step a pending card charge waits for (3-D Secure); null when it waits for none. */
  nextAction(chargeId: string): Promise<NextAction | null>;
  /** Asks to cancel a pending charge; the confirmation arrives later as a charge.cancelled event. */
  cancelCharge(chargeId: string): Promise<void>;
  refund(request: RefundRequest): Promise<RefundResult>;
  /** The live state of the charge's dispute, null when it has none. */
  disputeState(chargeId: string): Promise<DisputeInfo | null>;
  /** Verifies a webhook's signature (InvalidProcessorSignature otherwise) and normalizes it; events of no interest give []. */
  parseWebhook(rawBody: string | Buffer, headers: WebhookHeaders): Promise<ProcessorEvent[]>;
  /** Every charge created in the window, read page by page (the reconciliation's side of the processor). */
  listCharges(window: RecordWindow): AsyncIterable<ProcessorChargeRecord>;
  /** Every refund created in the window, read page by page. */
  listRefunds(window: RecordWindow): AsyncIterable<ProcessorRefundRecord>;
}

/** The idempotency key of a payment's charge: a new attempt (another card after a decline, a dunning retry) is a new charge. */
export function chargeIdempotencyKey(paymentId: string, attempt = 0): string {
  return `payment/${paymentId}/charge/${attempt}`;
}

/** The project's money range (docs/decisions.md): integer minor units up to 2^31 - 1. */
const isAmount = (amount: number) => Number.isInteger(amount) && amount >= 1 && amount <= MAX_MONEY;

/** What every processor refuses before calling anyone: the caller's mistakes, not the card's. */
export function checkChargeRequest(request: ChargeRequest, capabilities: ProcessorCapabilities): void {
  if (!isAmount(request.amount)) throw new InvalidProcessorRequest('invalid_amount', 'The amount is a positive integer of minor units');
  if (!/^[a-zA-Z]{3}$/.test(request.currency)) throw new InvalidProcessorRequest('invalid_currency', 'The currency is a three-letter code');
  if (!request.idempotencyKey || request.idempotencyKey.length > 255) {
    throw new InvalidProcessorRequest('invalid_idempotency_key', 'The idempotency key has 1 to 255 characters');
  }
  if (!capabilities.methods.includes(request.method)) throw new OperationNotSupported(`This processor does not take ${request.method} payments`);
  if (request.method !== 'card') {
    if (request.card || request.paymentMethod || request.savedPaymentMethod || request.savePaymentMethod) {
      throw new InvalidProcessorRequest('invalid_payment_method', `A ${request.method} payment takes no card`);
    }
    return;
  }
  if ([request.card, request.paymentMethod, request.savedPaymentMethod].filter(Boolean).length !== 1) {
    throw new InvalidProcessorRequest('invalid_payment_method', 'A card payment needs one of card details, a tokenized payment method or a saved payment method');
  }
  if ((request.savedPaymentMethod || request.savePaymentMethod) && !capabilities.savedPaymentMethods) {
    throw new OperationNotSupported('This processor does not keep payment methods');
  }
}

/** A setup takes card details or a tokenized payment method, not both, and a key. */
export function checkSetupRequest(request: SetupRequest): void {
  if (!request.idempotencyKey || request.idempotencyKey.length > 255) throw new InvalidProcessorRequest('invalid_idempotency_key', 'The idempotency key has 1 to 255 characters');
  if (!request.card === !request.paymentMethod) throw new InvalidProcessorRequest('invalid_payment_method', 'A setup needs either card details or a tokenized payment method');
}

export function checkRefundRequest(request: RefundRequest): void {
  if (request.amount !== undefined && !isAmount(request.amount)) {
    throw new InvalidProcessorRequest('invalid_amount', 'A refund amount is a positive integer of minor units');
  }
  if (!request.idempotencyKey || request.idempotencyKey.length > 255) {
    throw new InvalidProcessorRequest('invalid_idempotency_key', 'The idempotency key has 1 to 255 characters');
  }
}

/** A header's value whatever its case (Node lower-cases them; other callers may not). */
export function headerValue(headers: WebhookHeaders, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === wanted) return Array.isArray(value) ? value[0] : value;
  }
  return undefined;
}

// Errors. `name` is the class name, so a Temporal activity failure carries it as its type;
// `retryable` says whether retrying the same call can succeed (only ProcessorUnavailable).
// Messages never contain card numbers, keys or secrets.

export abstract class ProcessorError extends Error {
  abstract readonly code: string;
  readonly retryable: boolean = false;

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The card was refused before any charge existed (malformed number, expiry or CVC). */
export class CardDeclined extends ProcessorError {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** A transient failure (network, rate limit, the processor's 5xx): retry with backoff. */
export class ProcessorUnavailable extends ProcessorError {
  readonly code = 'processor_unavailable';
  override readonly retryable = true;
}

export class InvalidProcessorSignature extends ProcessorError {
  readonly code = 'invalid_signature';
}

/**
 * The processor refuses our credentials or their permissions (Stripe's 401 and 403): retrying
 * cannot fix it until an operator does, so the payment or refund fails with this reason.
 */
export class ProcessorAuthenticationFailed extends ProcessorError {
  readonly code = 'processor_authentication_failed';
}

/** A request the processor cannot take as it is (bad amount, missing card, key reused with other parameters). */
export class InvalidProcessorRequest extends ProcessorError {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export class ChargeNotFound extends ProcessorError {
  readonly code = 'charge_not_found';

  constructor(readonly chargeId: string) {
    super(`No charge ${chargeId} at the processor`);
  }
}

/** The charge is not in a state that allows this (cancel a settled charge, refund a disputed one). */
export class InvalidChargeState extends ProcessorError {
  constructor(
    readonly code: 'charge_not_pending' | 'charge_not_succeeded' | 'charge_disputed' | 'already_disputed' | 'no_open_dispute' | 'refund_not_succeeded',
    message: string,
  ) {
    super(message);
  }
}

export class RefundExceedsCharge extends ProcessorError {
  readonly code = 'refund_exceeds_charge';

  /** refundable is null where the processor does not say how much is left. */
  constructor(
    readonly requested: number,
    readonly refundable: number | null,
  ) {
    super(refundable === null ? `Refund of ${requested} exceeds what is still refundable` : `Refund of ${requested} exceeds the ${refundable} still refundable`);
  }
}

/** The processor does not do this through its API (see capabilities). */
export class OperationNotSupported extends ProcessorError {
  readonly code = 'not_supported';
}
