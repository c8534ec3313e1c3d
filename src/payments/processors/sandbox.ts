import { createHash, randomBytes } from 'node:crypto';

import { Prisma, type PrismaClient, type SandboxCharge } from '../../generated/prisma/client.js';
import { isUniqueViolation } from '../../db/client.js';
import { ChargeNotFound, InvalidChargeState, InvalidProcessorRequest, OperationNotSupported, ProcessorUnavailable, RefundExceedsCharge } from './processor.js';
import { checkChargeRequest, checkRefundRequest, checkSetupRequest, headerValue } from './processor.js';
import type { CardDetails, ChargeRequest, ChargeResult, DisputeInfo, NextAction, PaymentMethodInfo, PaymentProcessor, ProcessorCapabilities } from './processor.js';
import type { ProcessorChargeRecord, ProcessorEvent, ProcessorRefundRecord, RecordWindow, RefundRequest, RefundResult, SetupRequest, SetupResult, WebhookHeaders } from './processor.js';
import { sandboxCharges, sandboxRefunds } from './sandbox-ledger.js';
import { SANDBOX_SIGNATURE_HEADER } from './sandbox-signature.js';
import { SandboxWebhooks, recordEvent, sandboxEvent, sandboxId, type SignedWebhook } from './sandbox-events.js';
import { AUTHENTICATION_FAILED, chargeResult, declineCodeOf, disputeInfo, failureMessage, lockCharge, lockChargeForRefund, newCharge, openDispute, REFUND_BLOCKING_DISPUTES, replay, replayRefund, SETUP_PREFIX, statusEvent, writeCharge, type Outcome } from './sandbox-books.js';
import { checkCard, isExpired, normalizeCardNumber, TEST_CARDS, type CardBehaviour, type CheckedCard } from './test-cards.js';

// The embedded default processor: a stateful simulation of a card processor whose books live in
// PostgreSQL (the Sandbox* tables), so that a worker in another process sees the same charges.
// Outcomes follow Stripe's test cards (test-cards.ts). Like a real processor it is asynchronous:
// pending charges (PayPal, bank transfers, 3D Secure) change only through settle/fail, and every
// change reaches the consumer as a signed webhook (the outbox: pendingWebhooks), verified by
// parseWebhook exactly as Stripe's are, so both go through one handler.

export interface SandboxDeps {
  prisma: PrismaClient;
  /** The clock for card expiry and signature timestamps. */
  now?: () => Date;
}

/** The ids of tokenized cards (tokenizeCard). */
export const TOKEN_PREFIX = 'pm_sbx_tok_';

export const SANDBOX_CAPABILITIES: ProcessorCapabilities = {
  methods: ['card', 'paypal', 'manual'],
  // A bank transfer is paid back by another transfer, outside the API.
  refunds: { card: true, paypal: true, manual: false },
  cancel: { card: true, paypal: false, manual: true },
  savedPaymentMethods: true,
};

export class SandboxProcessor implements PaymentProcessor {
  readonly name = 'sandbox';
  readonly capabilities = SANDBOX_CAPABILITIES;
  private readonly prisma: PrismaClient;
  private readonly now: () => Date;
  private readonly webhooks: SandboxWebhooks;

  constructor(deps: SandboxDeps) {
    this.prisma = deps.prisma;
    this.now = deps.now ?? (() => new Date());
    this.webhooks = new SandboxWebhooks(deps.prisma, this.now);
  }

  async createCharge(request: ChargeRequest): Promise<ChargeResult> {
    checkChargeRequest(request, this.capabilities);
    let outcome: Outcome;
    try {
      outcome = await this.decide(request);
    } catch (error) {
      // A replay answers with its charge whatever its card says now (a saved card no longer reusable, a token's card expired since).
      const replayed = await this.replayOfKey(request);
      if (replayed) return replayed;
      throw error;
    }
    // Written in one statement unless the key is taken (writeCharge): the key's charge, a replay's
    // or a concurrent call's that won the insert, is then the answer.
    const { charge, events } = newCharge(request, outcome, this.now());
    if (await writeCharge(this.prisma, charge, events, outcome.newPaymentMethod === true)) return chargeResult(charge);
    return (await this.replayOfKey(request))!;
  }

  /** The answer of the charge that holds the request's idempotency key (replay's checks), or null when none does. */
  private async replayOfKey(request: ChargeRequest): Promise<ChargeResult | null> {
    const existing = await this.prisma.sandboxCharge.findUnique({ where: { idempotencyKey: request.idempotencyKey }, include: { paymentMethod: true } });
    return existing ? replay(existing, request) : null;
  }

  /** Card checks and the test card's behaviour; a saved method is charged off-session. */
  private async decide(request: ChargeRequest): Promise<Outcome> {
    if (request.method !== 'card') return { status: 'pending', behaviour: null };
    if (request.savedPaymentMethod) {
      const saved = await this.prisma.sandboxPaymentMethod.findUnique({ where: { id: request.savedPaymentMethod } });
      if (!saved?.reusable) {
        throw new InvalidProcessorRequest('payment_method_not_found', 'No saved card with that reference');
      }
      const behaviour = saved.behaviour as CardBehaviour;
      const failureCode = isExpired(saved.expMonth, saved.expYear, this.now())
        ? 'expired_card'
        : behaviour === 'authenticate'
          ? 'authentication_required'
          : behaviour === 'decline_off_session'
            ? 'generic_decline'
            : behaviour === 'decline'
              ? declineCodeOf(saved.brand, saved.last4)
              : undefined;
      return { status: failureCode ? 'failed' : 'succeeded', failureCode, behaviour, paymentMethod: saved };
    }
    const card = request.paymentMethod ? await this.token(request.paymentMethod) : checkCard(request.card!, this.now());
    const status = card.declineCode ? 'failed' : card.behaviour === 'authenticate' ? 'pending' : 'succeeded';
    const paymentMethod = {
      id: sandboxId('pm'),
      brand: card.brand,
      last4: card.last4,
      expMonth: card.expMonth,
      expYear: card.expYear,
      behaviour: card.behaviour,
      // A declined card is not kept for later, as with Stripe's setup_future_usage.
      reusable: Boolean(request.savePaymentMethod) && status !== 'failed',
      createdAt: new Date(),
    };
    return { status, failureCode: card.declineCode, behaviour: card.behaviour, paymentMethod, newPaymentMethod: true };
  }

  /**
   * The zero-amount check of a trial's card: the card's checks and its issuer's answer as for a
   * charge (a declining test card fails, 3-D Secure cards are taken as authenticated), no money;
   * a card that passes is saved for off-session charges. The key returns the same method again.
   */
  async setupPaymentMethod(request: SetupRequest): Promise<SetupResult> {
    checkSetupRequest(request);
    const card = request.paymentMethod ? await this.token(request.paymentMethod) : checkCard(request.card!, this.now());
    if (card.declineCode) return { status: 'failed', failureCode: card.declineCode, failureMessage: failureMessage(card.declineCode) };
    const id = `${SETUP_PREFIX}${createHash('sha256').update(request.idempotencyKey).digest('hex').slice(0, 24)}`;
    // With the buyer there, the 3-D Secure card waits for the sandbox's authentication step (not reusable until then).
    const waits = request.buyerPresent === true && card.behaviour === 'authenticate';
    await this.prisma.sandboxPaymentMethod.upsert({
      where: { id },
      create: { id, brand: card.brand, last4: card.last4, expMonth: card.expMonth, expYear: card.expYear, behaviour: card.behaviour, reusable: !waits },
      update: {},
    });
    return this.setupState(id);
  }

  /** Saved (reusable), waiting for authentication (not yet), or gone: its authentication failed. */
  async setupState(setupId: string): Promise<SetupResult> {
    const saved = setupId.startsWith(SETUP_PREFIX) ? await this.prisma.sandboxPaymentMethod.findUnique({ where: { id: setupId } }) : null;
    if (!saved) return { status: 'failed', failureCode: AUTHENTICATION_FAILED, failureMessage: failureMessage(AUTHENTICATION_FAILED) };
    if (saved.reusable) return { status: 'succeeded', paymentMethod: { ref: saved.id, brand: saved.brand, last4: saved.last4 } };
    return { status: 'requires_action', setupId, nextAction: { clientSecret: await this.webhooks.clientSecret(setupId) } };
  }

  /**
   * The sandbox's tokenizing endpoint (what Stripe.js is to Stripe): the card's checks, then a
   * one-time payment method `pm_sbx_tok_…` that a charge or a setup takes in place of the card.
   * Malformed details are CardDeclined; a declining card tokenizes, and declines when used.
   */
  async tokenizeCard(card: CardDetails): Promise<PaymentMethodInfo> {
    const checked = checkCard(card, this.now());
    const saved = await this.prisma.sandboxPaymentMethod.create({
      data: { id: `${TOKEN_PREFIX}${randomBytes(12).toString('hex')}`, brand: checked.brand, last4: checked.last4, expMonth: checked.expMonth, expYear: checked.expYear, behaviour: checked.behaviour, reusable: false },
    });
    return { ref: saved.id, brand: saved.brand, last4: saved.last4 };
  }

  /** A token's card as checkCard would report it now (expired since: expired_card). */
  private async token(id: string): Promise<CheckedCard> {
    const token = id.startsWith(TOKEN_PREFIX) ? await this.prisma.sandboxPaymentMethod.findUnique({ where: { id } }) : null;
    if (!token) throw new InvalidProcessorRequest('payment_method_not_found', 'No sandbox payment method with that id (tokenize the card first)');
    const behaviour = token.behaviour as CardBehaviour;
    const checked = { brand: token.brand, last4: token.last4, expMonth: token.expMonth, expYear: token.expYear, behaviour };
    if (isExpired(token.expMonth, token.expYear, this.now())) return { ...checked, declineCode: 'expired_card' };
    return behaviour === 'decline' ? { ...checked, declineCode: declineCodeOf(token.brand, token.last4) } : checked;
  }

  /**
   * Test helper: saves one of the test cards for off-session charges without charging it (what a
   * payment-method update does at a processor). A declining test card is kept too, so that its
   * later charges fail with its decline code.
   */
  async saveTestCard(number: string): Promise<PaymentMethodInfo> {
    const digits = normalizeCardNumber(number);
    const card = TEST_CARDS[digits];
    if (!card) throw new InvalidProcessorRequest('invalid_test_card', 'Not one of the sandbox test cards');
    const saved = await this.prisma.sandboxPaymentMethod.create({
      data: { id: sandboxId('pm'), brand: card.brand, last4: digits.slice(-4), expMonth: 12, expYear: this.now().getUTCFullYear() + 5, behaviour: card.behaviour, reusable: true },
    });
    return { ref: saved.id, brand: saved.brand, last4: saved.last4 };
  }

  /** A pending card charge of a 3-D Secure test card waits for the sandbox's authentication step (authenticate). */
  async nextAction(chargeId: string): Promise<NextAction | null> {
    const charge = await this.prisma.sandboxCharge.findUnique({ where: { id: chargeId } });
    if (charge?.method !== 'card' || charge.status !== 'pending' || charge.behaviour !== 'authenticate') return null;
    return { clientSecret: await this.webhooks.clientSecret(charge.id) };
  }

  /**
   * The sandbox's 3-D Secure step, which the buyer's browser takes with the charge's client secret
   * (what Stripe's test authentication page is to Stripe): completed settles the charge, not
   * completed fails it, each with its webhook as settle and fail give it; a pending setup's (a
   * payment-method page) saves the card or drops it, with no webhook (null).
   */
  async authenticate(clientSecret: string, completed: boolean): Promise<SignedWebhook | null> {
    const chargeId = await this.webhooks.chargeOfClientSecret(clientSecret);
    if (!chargeId) throw new InvalidProcessorRequest('invalid_client_secret', 'No sandbox charge with that client secret');
    if (chargeId.startsWith(SETUP_PREFIX)) return this.authenticateSetup(chargeId, completed);
    const charge = await this.prisma.sandboxCharge.findUnique({ where: { id: chargeId } });
    if (charge?.behaviour !== 'authenticate') throw new InvalidChargeState('charge_not_pending', `Charge ${chargeId} waits for no authentication`);
    return completed ? this.settle(chargeId) : this.fail(chargeId, AUTHENTICATION_FAILED);
  }

  /** A setup's authentication: the card is saved, or not kept at all (setupState then says failed). No event: setups have none. */
  private async authenticateSetup(setupId: string, completed: boolean): Promise<null> {
    const pending = { id: setupId, reusable: false, behaviour: 'authenticate' };
    const { count } = completed
      ? await this.prisma.sandboxPaymentMethod.updateMany({ where: pending, data: { reusable: true } })
      : await this.prisma.sandboxPaymentMethod.deleteMany({ where: pending });
    if (count === 0) throw new InvalidChargeState('charge_not_pending', `Setup ${setupId} waits for no authentication`);
    return null;
  }

  async cancelCharge(chargeId: string): Promise<void> {
    await this.transition(chargeId, async (tx, charge, now) => {
      if (!this.capabilities.cancel[charge.method as ChargeRequest['method']]) {
        throw new OperationNotSupported(`A ${charge.method} payment cannot be cancelled through the API`);
      }
      if (charge.status !== 'pending') throw new InvalidChargeState('charge_not_pending', `Charge ${charge.id} is ${charge.status}, not pending`);
      const cancelled = await tx.sandboxCharge.update({ where: { id: charge.id }, data: { status: 'cancelled' } });
      return recordEvent(tx, cancelled, { type: 'charge.cancelled' }, now);
    });
  }

  async refund(request: RefundRequest): Promise<RefundResult> {
    checkRefundRequest(request);
    try {
      return await this.prisma.$transaction(async (tx) => {
        const { charge, earlier } = await lockChargeForRefund(tx, request.chargeId, request.idempotencyKey);
        if (earlier) return replayRefund(earlier, request);
        if (!this.capabilities.refunds[charge.method as ChargeRequest['method']]) {
          throw new OperationNotSupported(`A ${charge.method} payment cannot be refunded through the API`);
        }
        if (charge.status !== 'succeeded') throw new InvalidChargeState('charge_not_succeeded', `Charge ${charge.id} is ${charge.status}`);
        if (REFUND_BLOCKING_DISPUTES.has(charge.disputeStatus)) throw new InvalidChargeState('charge_disputed', `Charge ${charge.id} is disputed`);
        const refundable = charge.amount - charge.amountRefunded;
        const amount = request.amount ?? refundable;
        if (amount > refundable || amount === 0) {
          // A refund under the same key committed while this one waited for the charge's lock is not
          // in the lock statement's snapshot (taken before the wait): it is the answer, not a refusal.
          const committed = await tx.sandboxRefund.findUnique({ where: { idempotencyKey: request.idempotencyKey } });
          if (committed) return replayRefund(committed, request);
          throw new RefundExceedsCharge(amount, refundable);
        }

        const now = this.now();
        // Accepted first, failed later (Stripe's 4000000000005126): the caller sees pending, the event says failed.
        const failed = charge.behaviour === 'refund_fail';
        const refund = { id: sandboxId('re'), amount, status: failed ? 'failed' : 'succeeded', failureCode: failed ? 'expired_or_canceled_card' : null };
        const amountRefunded = charge.amountRefunded + (failed ? 0 : amount);
        const event = failed
          ? sandboxEvent(charge, { type: 'refund.failed', refundId: refund.id, amount, failureCode: refund.failureCode! }, now)
          : sandboxEvent(charge, { type: 'charge.refunded', refundId: refund.id, amountRefunded, fullyRefunded: amountRefunded === charge.amount }, now);
        // The refund, the charge's refunded amount (the charge is locked) and the event in one statement.
        await tx.$executeRaw`
          WITH refund AS (
            INSERT INTO "SandboxRefund" (id, "idempotencyKey", "chargeId", amount, status, "failureCode", "createdAt")
            VALUES (${refund.id}, ${request.idempotencyKey}, ${charge.id}, ${amount}, ${refund.status}, ${refund.failureCode}, ${now})
          ), charge AS (
            UPDATE "SandboxCharge" SET "amountRefunded" = ${amountRefunded}, "updatedAt" = ${new Date()} WHERE id = ${charge.id} AND ${!failed}
          )
          INSERT INTO "SandboxEvent" (id, "chargeId", type, payload, "createdAt") VALUES (${event.id}, ${charge.id}, ${event.type}, ${JSON.stringify(event)}::jsonb, ${now})`;
        return { refundId: refund.id, status: failed ? 'pending' : 'succeeded', amount };
      });
    } catch (error) {
      // The same key on another charge, inserted concurrently: compare with that refund.
      if (!isUniqueViolation(error)) throw error;
      const winner = await this.prisma.sandboxRefund.findUniqueOrThrow({ where: { idempotencyKey: request.idempotencyKey } });
      return replayRefund(winner, request);
    }
  }

  async disputeState(chargeId: string): Promise<DisputeInfo | null> {
    const charge = await this.prisma.sandboxCharge.findUnique({ where: { id: chargeId } });
    if (!charge) throw new ChargeNotFound(chargeId);
    if (charge.disputeCheckFails) throw new ProcessorUnavailable('The dispute service did not answer');
    return disputeInfo(charge);
  }

  async parseWebhook(rawBody: string | Buffer, headers: WebhookHeaders): Promise<ProcessorEvent[]> {
    const body = typeof rawBody === 'string' ? rawBody : rawBody.toString('utf8');
    return [await this.webhooks.verify(body, headerValue(headers, SANDBOX_SIGNATURE_HEADER))];
  }

  /** The reconciliation's view of the sandbox's books, as a processor's list APIs give them (./sandbox-ledger.ts). */
  listCharges(window: RecordWindow): AsyncIterable<ProcessorChargeRecord> {
    return sandboxCharges(this.prisma, window);
  }

  listRefunds(window: RecordWindow): AsyncIterable<ProcessorRefundRecord> {
    return sandboxRefunds(this.prisma, window);
  }

  // The sandbox's own controls (test helpers): each changes the books and returns the signed
  // webhook of that change, which also stays in the outbox until acknowledged.

  /** A pending charge is paid (PayPal approved, transfer arrived, 3D Secure completed). */
  settle(chargeId: string): Promise<SignedWebhook> {
    return this.transition(chargeId, async (tx, charge, now) => {
      if (charge.status !== 'pending') throw new InvalidChargeState('charge_not_pending', `Charge ${charge.id} is ${charge.status}, not pending`);
      const settled = await tx.sandboxCharge.update({ where: { id: charge.id }, data: { status: 'succeeded' } });
      return recordEvent(tx, settled, statusEvent(settled), now);
    });
  }

  /** A pending charge fails (PayPal declined, transfer never came, 3D Secure failed). */
  fail(chargeId: string, failureCode = 'generic_decline'): Promise<SignedWebhook> {
    return this.transition(chargeId, async (tx, charge, now) => {
      if (charge.status !== 'pending') throw new InvalidChargeState('charge_not_pending', `Charge ${charge.id} is ${charge.status}, not pending`);
      const failed = await tx.sandboxCharge.update({
        where: { id: charge.id },
        data: { status: 'failed', failureCode, failureMessage: failureMessage(failureCode) },
      });
      // A card whose first charge failed is not kept for later (3D Secure not completed).
      if (failed.paymentMethodId) await tx.sandboxPaymentMethod.update({ where: { id: failed.paymentMethodId }, data: { reusable: false } });
      return recordEvent(tx, failed, statusEvent(failed), now);
    });
  }

  /** The cardholder disputes a paid charge (one dispute per charge). */
  dispute(chargeId: string, reason = 'fraudulent'): Promise<SignedWebhook> {
    return this.transition(chargeId, async (tx, charge, now) => {
      if (charge.status !== 'succeeded') throw new InvalidChargeState('charge_not_succeeded', `Charge ${charge.id} is ${charge.status}`);
      if (charge.disputeId) throw new InvalidChargeState('already_disputed', `Charge ${charge.id} is already disputed`);
      return (await openDispute(tx, charge, now, reason)).event;
    });
  }

  /** The open dispute ends: won gives the money back, lost keeps it with the cardholder. */
  closeDispute(chargeId: string, outcome: 'won' | 'lost'): Promise<SignedWebhook> {
    return this.transition(chargeId, async (tx, charge, now) => {
      if (charge.disputeStatus !== 'needs_response' && charge.disputeStatus !== 'under_review') {
        throw new InvalidChargeState('no_open_dispute', `Charge ${charge.id} has no open dispute`);
      }
      const closed = await tx.sandboxCharge.update({ where: { id: charge.id }, data: { disputeStatus: outcome } });
      return recordEvent(tx, closed, { type: 'dispute.closed', dispute: disputeInfo(closed)! }, now);
    });
  }

  /** A refund that succeeded fails afterwards (the card was closed meanwhile): the money is back with the merchant. */
  async failRefund(refundId: string, failureCode = 'expired_or_canceled_card'): Promise<SignedWebhook> {
    const { chargeId, amount } = await this.prisma.sandboxRefund.findUniqueOrThrow({ where: { id: refundId }, select: { chargeId: true, amount: true } });
    return this.transition(chargeId, async (tx, charge, now) => {
      const { count } = await tx.sandboxRefund.updateMany({ where: { id: refundId, status: 'succeeded' }, data: { status: 'failed', failureCode } });
      if (count === 0) throw new InvalidChargeState('refund_not_succeeded', `Refund ${refundId} has not succeeded`);
      const updated = await tx.sandboxCharge.update({ where: { id: charge.id }, data: { amountRefunded: { decrement: amount } } });
      return recordEvent(tx, updated, { type: 'refund.failed', refundId, amount, failureCode }, now);
    });
  }

  /** Test helper: from now on the live dispute check of the charge fails as if the processor were unreachable. */
  async failDisputeChecks(chargeId: string): Promise<void> {
    const { count } = await this.prisma.sandboxCharge.updateMany({ where: { id: chargeId }, data: { disputeCheckFails: true } });
    if (count === 0) throw new ChargeNotFound(chargeId);
  }

  /** The outbox: events not yet acknowledged, signed now, for a poller to hand to the webhook handler. */
  pendingWebhooks(limit?: number): Promise<SignedWebhook[]> {
    return this.webhooks.pending(limit);
  }

  acknowledgeWebhook(eventId: string): Promise<void> {
    return this.webhooks.acknowledge(eventId);
  }

  /** Locks the charge, applies the change, returns the signed webhook of the event it recorded. */
  private async transition(
    chargeId: string,
    change: (tx: Prisma.TransactionClient, charge: SandboxCharge, now: Date) => Promise<ProcessorEvent>,
  ): Promise<SignedWebhook> {
    const event = await this.prisma.$transaction(async (tx) => change(tx, await lockCharge(tx, chargeId), this.now()));
    return this.webhooks.sign(event);
  }
}
