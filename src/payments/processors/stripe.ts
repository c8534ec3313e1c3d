import Stripe from 'stripe';
import {
  CardDeclined,
  ChargeNotFound,
  InvalidChargeState,
  InvalidProcessorRequest,
  InvalidProcessorSignature,
  OperationNotSupported,
  ProcessorAuthenticationFailed,
  ProcessorUnavailable,
  RefundExceedsCharge,
  checkChargeRequest,
  checkRefundRequest,
  checkSetupRequest,
  headerValue,
  type CardDetails,
  type ChargeRequest,
  type ChargeResult,
  type DisputeInfo,
  type NextAction,
  type PaymentProcessor,
  type ProcessorCapabilities,
  type ProcessorChargeRecord,
  type ProcessorEvent,
  type ProcessorRefundRecord,
  type RecordWindow,
  type RefundRequest,
  type RefundResult,
  type SetupRequest,
  type SetupResult,
  type WebhookHeaders,
} from './processor.js';
import { STRIPE_CAPABILITIES } from './stripe-capabilities.js';
import { disputeInfo, failureOf, normalizeStripeEvent } from './stripe-events.js';
import { TEST_CARDS, checkCard, isExpired, normalizeCardNumber } from './test-cards.js';

// The Stripe adapter: one PaymentIntent per charge (its id is our chargeId), created and confirmed
// in one call with our idempotency key, so a retried activity gets the same PaymentIntent back.
// Test-mode keys send Stripe's test PaymentMethods for its test card numbers (Stripe refuses raw
// numbers unless the account may send them); other numbers, and every live-mode card, become a
// PaymentMethod from the raw card, which needs Stripe's permission for raw card data.

export interface StripeProcessorConfig {
  secretKey: string;
  webhookSecret: string;
  /** Another API address, e.g. stripe-mock's `http://127.0.0.1:12111`. */
  apiBase?: string;
}

/** A saved card: the customer it is attached to and the PaymentMethod, as one opaque ref. */
const REF_SEPARATOR = ':';
const REQUEST_TIMEOUT_MS = 20_000;

export class StripeProcessor implements PaymentProcessor {
  readonly name = 'stripe';
  readonly capabilities: ProcessorCapabilities = STRIPE_CAPABILITIES;
  private readonly stripe: Stripe;
  private readonly livemode: boolean;
  private readonly webhookSecret: string;

  constructor(
    config: StripeProcessorConfig,
    private readonly now: () => Date = () => new Date(),
  ) {
    const base = config.apiBase ? new URL(config.apiBase) : undefined;
    this.stripe = new Stripe(config.secretKey, {
      timeout: REQUEST_TIMEOUT_MS,
      telemetry: false,
      appInfo: { name: 'commerce-api' },
      ...(base && {
        host: base.hostname,
        port: Number(base.port) || (base.protocol === 'http:' ? 80 : 443),
        protocol: base.protocol === 'http:' ? 'http' : 'https',
      }),
    });
    this.livemode = /^(sk|rk)_live_/.test(config.secretKey);
    this.webhookSecret = config.webhookSecret;
  }

  async createCharge(request: ChargeRequest): Promise<ChargeResult> {
    checkChargeRequest(request, this.capabilities);
    // The key decides Stripe's mode: a test payment must never reach a live account, nor the reverse.
    if (request.livemode !== this.livemode) {
      throw new OperationNotSupported(`A ${request.livemode ? 'live' : 'test'}-mode payment needs a ${request.livemode ? 'live' : 'test'}-mode Stripe key`);
    }
    const key = request.idempotencyKey;
    try {
      let customer: string | undefined;
      let paymentMethod: string;
      if (request.savedPaymentMethod) {
        [customer, paymentMethod] = parseRef(request.savedPaymentMethod);
      } else {
        paymentMethod = request.paymentMethod ?? (await this.cardPaymentMethod(request.card!, key));
        if (request.savePaymentMethod) {
          const created = await this.stripe.customers.create({ email: request.email, metadata: { paymentId: request.paymentId } }, { idempotencyKey: `${key}/customer` });
          customer = created.id;
        }
      }
      const intent = await this.stripe.paymentIntents.create(
        {
          amount: request.amount,
          currency: request.currency.toLowerCase(),
          allowed_payment_method_types: ['card'],
          payment_method: paymentMethod,
          confirm: true,
          customer,
          metadata: { ...request.metadata, paymentId: request.paymentId },
          expand: ['payment_method'],
          // A saved card is charged without the cardholder (renewals): Stripe applies the off-session rules.
          ...(request.savedPaymentMethod ? { off_session: true } : {}),
          ...(request.savePaymentMethod ? { setup_future_usage: 'off_session' as const } : {}),
        },
        { idempotencyKey: key, ...(request.oneCallPerTry ? { maxNetworkRetries: 0 } : {}) },
      );
      return chargeResult(intent);
    } catch (error) {
      // A declined card still leaves a PaymentIntent behind: that is a failed charge, not an error.
      if (error instanceof Stripe.errors.StripeCardError && error.payment_intent) return chargeResult(error.payment_intent);
      throw mapStripeError(error);
    }
  }

  /** Stripe's test PaymentMethod for a test card in test mode (an expired date: its expired-card one); otherwise the raw card. */
  private async cardPaymentMethod(card: CardDetails, key: string): Promise<string> {
    if (!this.livemode) {
      const checked = checkCard(card, this.now());
      if (isExpired(checked.expMonth, checked.expYear, this.now())) return 'pm_card_chargeDeclinedExpiredCard';
      const testCard = TEST_CARDS[normalizeCardNumber(card.number)];
      if (testCard) return testCard.stripePaymentMethod;
    }
    const created = await this.stripe.paymentMethods.create(
      { type: 'card', card: { number: normalizeCardNumber(card.number), exp_month: card.expMonth, exp_year: card.expYear, cvc: card.cvc } },
      { idempotencyKey: `${key}/payment-method` },
    );
    return created.id;
  }

  /** A SetupIntent confirmed at once (usage off_session) on a new customer: the saved card, no money moved. */
  async setupPaymentMethod(request: SetupRequest): Promise<SetupResult> {
    if (request.livemode !== this.livemode) {
      throw new OperationNotSupported(`A ${request.livemode ? 'live' : 'test'}-mode setup needs a ${request.livemode ? 'live' : 'test'}-mode Stripe key`);
    }
    checkSetupRequest(request);
    const key = request.idempotencyKey;
    try {
      const paymentMethod = request.paymentMethod ?? (await this.cardPaymentMethod(request.card!, key));
      const customer = await this.stripe.customers.create({ email: request.email, ...(request.metadata ? { metadata: request.metadata } : {}) }, { idempotencyKey: `${key}/customer` });
      const intent = await this.stripe.setupIntents.create(
        { customer: customer.id, payment_method: paymentMethod, allowed_payment_method_types: ['card'], usage: 'off_session', confirm: true, ...(request.metadata ? { metadata: request.metadata } : {}) },
        { idempotencyKey: key },
      );
      return setupResult({ ...intent, customer: customer.id }, request.buyerPresent === true);
    } catch (error) {
      if (error instanceof Stripe.errors.StripeCardError) return { status: 'failed', failureCode: error.decline_code ?? error.code ?? 'card_declined', failureMessage: error.message };
      throw mapStripeError(error);
    }
  }

  async setupState(setupId: string): Promise<SetupResult> {
    try {
      return setupResult(await this.stripe.setupIntents.retrieve(setupId), true);
    } catch (error) {
      throw mapStripeError(error);
    }
  }

  async nextAction(chargeId: string): Promise<NextAction | null> {
    try {
      return nextActionOf(await this.stripe.paymentIntents.retrieve(chargeId));
    } catch (error) {
      throw mapStripeError(error, chargeId);
    }
  }

  async cancelCharge(chargeId: string): Promise<void> {
    try {
      await this.stripe.paymentIntents.cancel(chargeId);
    } catch (error) {
      throw mapStripeError(error, chargeId);
    }
  }

  async refund(request: RefundRequest): Promise<RefundResult> {
    checkRefundRequest(request);
    try {
      const refund = await this.stripe.refunds.create(
        { payment_intent: request.chargeId, amount: request.amount, ...(request.metadata ? { metadata: request.metadata } : {}) },
        // One call per try, no retries of the SDK's own: the refund's activity retries, and checks
        // the key's window before each call (an SDK retry seconds later could land past it).
        { idempotencyKey: request.idempotencyKey, maxNetworkRetries: 0 },
      );
      const status = refund.status === 'succeeded' ? 'succeeded' : refund.status === 'failed' || refund.status === 'canceled' ? 'failed' : 'pending';
      return { refundId: refund.id, status, amount: refund.amount };
    } catch (error) {
      throw mapStripeError(error, request.chargeId, request.amount);
    }
  }

  async disputeState(chargeId: string): Promise<DisputeInfo | null> {
    try {
      const disputes = await this.stripe.disputes.list({ payment_intent: chargeId, limit: 1 });
      return disputes.data[0] ? disputeInfo(disputes.data[0]) : null;
    } catch (error) {
      throw mapStripeError(error, chargeId);
    }
  }

  async parseWebhook(rawBody: string | Buffer, headers: WebhookHeaders): Promise<ProcessorEvent[]> {
    const signature = headerValue(headers, 'stripe-signature');
    if (!signature) throw new InvalidProcessorSignature('Missing stripe-signature header');
    let event: Stripe.Event;
    try {
      event = this.stripe.webhooks.constructEvent(rawBody, signature, this.webhookSecret, undefined, undefined, Math.floor(this.now().getTime() / 1000));
    } catch (error) {
      if (error instanceof Stripe.errors.StripeSignatureVerificationError) throw new InvalidProcessorSignature('Stripe signature verification failed');
      throw error;
    }
    return normalizeStripeEvent(event);
  }

  /** The PaymentIntents (our charges) created in the window, through the list API's auto-pagination. */
  async *listCharges(window: RecordWindow): AsyncIterable<ProcessorChargeRecord> {
    try {
      for await (const intent of this.stripe.paymentIntents.list({ created: createdIn(window), limit: 100 })) {
        const status = intent.status === 'succeeded' ? 'succeeded' : intent.status === 'canceled' ? 'cancelled' : intent.last_payment_error ? 'failed' : 'pending';
        const failure = status === 'failed' ? failureOf(intent.last_payment_error) : { failureCode: null, failureMessage: null };
        yield { chargeId: intent.id, paymentId: intent.metadata?.paymentId ?? null, amount: intent.amount, currency: intent.currency, status, ...failure, createdAt: new Date(intent.created * 1000) };
      }
    } catch (error) {
      throw mapStripeError(error);
    }
  }

  /** The refunds created in the window; one not of a PaymentIntent (a bare charge's, made elsewhere) names its charge. */
  async *listRefunds(window: RecordWindow): AsyncIterable<ProcessorRefundRecord> {
    try {
      for await (const refund of this.stripe.refunds.list({ created: createdIn(window), limit: 100 })) {
        const chargeId = idOf(refund.payment_intent) ?? idOf(refund.charge) ?? '';
        const status = refund.status === 'succeeded' || refund.status === 'failed' || refund.status === 'canceled' ? refund.status : 'pending';
        yield {
          refundId: refund.id,
          chargeId,
          amount: refund.amount,
          currency: refund.currency,
          status,
          failureCode: refund.failure_reason ?? null,
          ourRefundId: refund.metadata?.refundId ?? null,
          paymentId: refund.metadata?.paymentId ?? null,
          createdAt: new Date(refund.created * 1000),
        };
      }
    } catch (error) {
      throw mapStripeError(error);
    }
  }
}

/** Stripe's `created` filter in whole seconds: since inclusive, until exclusive. */
const createdIn = (window: RecordWindow) => ({ gte: Math.floor(window.since.getTime() / 1000), lt: Math.ceil(window.until.getTime() / 1000) });

const idOf = (value: string | { id: string } | null | undefined): string | null => (value == null ? null : typeof value === 'string' ? value : value.id);

function parseRef(ref: string): [string, string] {
  const [customer, paymentMethod, ...rest] = ref.split(REF_SEPARATOR);
  if (!customer || !paymentMethod || rest.length > 0) throw new InvalidProcessorRequest('payment_method_not_found', 'Not a saved Stripe payment method');
  return [customer, paymentMethod];
}

/** A PaymentIntent or SetupIntent waiting for the cardholder (requires_action: 3-D Secure) gives its client secret for stripe.handleNextAction. */
export function nextActionOf(intent: { status: string; client_secret: string | null }): NextAction | null {
  return intent.status === 'requires_action' && intent.client_secret ? { clientSecret: intent.client_secret } : null;
}

/** A SetupIntent on ours: requires_action (its client secret) only when the buyer is there to authenticate, otherwise a failure. */
export function setupResult(intent: Pick<Stripe.SetupIntent, 'id' | 'status' | 'client_secret' | 'payment_method' | 'customer' | 'last_setup_error'>, buyerPresent: boolean): SetupResult {
  const methodId = typeof intent.payment_method === 'string' ? intent.payment_method : intent.payment_method?.id;
  const customer = typeof intent.customer === 'string' ? intent.customer : intent.customer?.id;
  if (intent.status === 'succeeded' && methodId && customer) return { status: 'succeeded', paymentMethod: { ref: `${customer}${REF_SEPARATOR}${methodId}` } };
  const next = nextActionOf(intent);
  if (buyerPresent && next) return { status: 'requires_action', setupId: intent.id, nextAction: next };
  return { status: 'failed', ...failureOf(intent.last_setup_error as Stripe.PaymentIntent.LastPaymentError | null) };
}

function chargeResult(intent: Stripe.PaymentIntent): ChargeResult {
  const status =
    intent.status === 'succeeded'
      ? 'succeeded'
      : intent.status === 'processing' || intent.status === 'requires_action' || intent.status === 'requires_capture' || intent.status === 'requires_confirmation'
        ? 'pending'
        : 'failed';
  const method = intent.payment_method;
  const methodId = typeof method === 'string' ? method : method?.id;
  const customer = typeof intent.customer === 'string' ? intent.customer : intent.customer?.id;
  const card = typeof method === 'object' ? method?.card : undefined;
  return {
    chargeId: intent.id,
    status,
    ...(status === 'failed' ? (intent.status === 'canceled' ? { failureCode: 'cancelled', failureMessage: 'The payment was cancelled.' } : failureOf(intent.last_payment_error)) : {}),
    ...(methodId ? { paymentMethod: { ref: customer ? `${customer}${REF_SEPARATOR}${methodId}` : methodId, brand: card?.brand, last4: card?.last4 } } : {}),
  };
}

/** Stripe's errors on ours: transient ones are retryable (ProcessorUnavailable), the rest say what to fix. */
function mapStripeError(error: unknown, chargeId?: string, refundAmount?: number): Error {
  const { errors } = Stripe;
  if (!(error instanceof errors.StripeError)) return error instanceof Error ? error : new Error(String(error));
  // A bad key or a missing permission needs an operator: retrying the same call cannot fix it.
  if (error instanceof errors.StripeAuthenticationError || error instanceof errors.StripePermissionError || error.statusCode === 401 || error.statusCode === 403) {
    return new ProcessorAuthenticationFailed(`Stripe refused the API key or its permissions (HTTP ${error.statusCode ?? 401}): check STRIPE_SECRET_KEY`, { cause: error });
  }
  if (
    error instanceof errors.StripeConnectionError ||
    error instanceof errors.StripeRateLimitError ||
    error instanceof errors.StripeAPIError ||
    error.statusCode === 409 ||
    (error.statusCode ?? 0) >= 500 ||
    error.code === 'lock_timeout'
  ) {
    return new ProcessorUnavailable(`Stripe is unavailable: ${error.type}${error.statusCode ? ` (HTTP ${error.statusCode})` : ''}`, { cause: error });
  }
  if (error instanceof errors.StripeCardError) return new CardDeclined(error.decline_code ?? error.code ?? 'card_declined', redact(error.message));
  if (error instanceof errors.StripeIdempotencyError) return new InvalidProcessorRequest('idempotency_key_reused', 'The idempotency key was used for another request');
  if (error.code === 'resource_missing' && chargeId) return new ChargeNotFound(chargeId);
  if (error.code === 'payment_intent_unexpected_state') return new InvalidChargeState('charge_not_pending', redact(error.message));
  if (error.code === 'charge_disputed' || error.code === 'refund_disputed_payment') return new InvalidChargeState('charge_disputed', redact(error.message));
  if (error.code === 'charge_already_refunded') return new RefundExceedsCharge(refundAmount ?? 0, 0);
  // An over-refund comes as amount_too_large, or with param amount and no code at all.
  if (refundAmount !== undefined && (error.code === 'amount_too_large' || (error.param === 'amount' && /unrefunded amount/.test(error.message)))) {
    return new RefundExceedsCharge(refundAmount, null);
  }
  return new InvalidProcessorRequest(error.code ?? 'invalid_request', redact(error.message));
}

/** Stripe's messages are worth passing on, but not with a key or a card number in them (stripe-mock echoes the Authorization header). */
function redact(message: string): string {
  return message.replace(/\b(sk|rk|pk)_(test|live)_\w+/g, '[key]').replace(/\d(?:[\s-]?\d){11,18}/g, '[number]');
}
