// The hosted checkout's sale: the quote and the order a buyer places through a checkout element,
// without API keys (the element id is public, like a payment link). The scope is the element's:
// a test-mode element makes test-mode records only. The order is made in ONE transaction with row
// locks (the element's offers FOR UPDATE in id order, then the discount), so an offer's limit is
// never oversold and a discount's purchaseLimit never exceeded, and a key-based product's units
// each take a license key (src/delivery/license-keys.ts); the charge happens after the
// commit (payment-flow.ts), and an order whose first payment ends unpaid gives its reservations
// back (releaseOrderReservations, from the payment's transition). Rules: docs/decisions.md,
// "Hosted checkout".
import type { Discount, Prisma, PrismaClient, User } from '../generated/prisma/client.js';
import type { PaymentStatus } from '../generated/prisma/enums.js';
import { DomainError, PaymentDeclined, ValidationFailed } from '../core/errors.js';
import { inScope, type Scope } from '../core/scope.js';
import { uuidv7 } from '../core/uuid.js';
import { recordEvent } from '../events/event-service.js';
import { createOrder, type NewOrderItem } from '../orders/index.js';
import { applyRecordedCharge, startPayment, type CardSource, CardDeclined, ProcessorError, ProcessorUnavailable, type CardDetails, type PaymentProcessor, DECLINE_MESSAGES, notifyPaymentPaid, markPaymentFailed, markPaymentPaid, PaymentTransitionRefused, type RecordedCharge } from '../payments/index.js';
import type { TemporalConnection } from '../temporal/client.js';
import { systemClock, unixSeconds, type Clock } from '../core/time.js';
import { taxRegistrations } from '../tax/index.js';
import { lockOffers, sellingElement, type ElementOffer, type TaxSettings } from './sale-reads.js';
import { discountResource } from '../discounts/index.js';
import { reserveLicenseKeys } from '../delivery/index.js';
import { userEventData } from '../users/index.js';
import { checkIdempotencyKey, claimKeyForOrder, earlierOrder, KeyTaken, type Placed } from '../core/idempotency.js';
import { checkoutTarget, requestHash } from './idempotency.js';
import { checkBillingDetails, checkOrderRequest, type CheckedBillingDetails, type CheckedOrderRequest, type CheckoutOrderRequest, type QuoteRequest } from './order-request.js';
import { checkQuantity, normalizeDiscountCode, priceCheckout, type CheckoutPrice, type PricingDiscount, type PricingOffer, type PricingTax } from './pricing.js';

/** The processor is unreachable: the buyer is answered 503 and may retry (with the same Idempotency-Key). */
export class CheckoutProcessorUnavailable extends DomainError {
  readonly kind = 'unavailable';
}

export interface CheckoutDeps {
  prisma: PrismaClient;
  temporal: TemporalConnection;
  processor: PaymentProcessor;
  /** The sale's time (rates in force, discounts' validity); default the system's. */
  now?: Clock;
}

export type CheckoutQuote = CheckoutPrice & { checkoutElementId: string; livemode: boolean };

type Tx = Prisma.TransactionClient;

/** Each offer can be sold now in that quantity (400 otherwise): live, ACTIVE, enough left under its limit. */
function checkOffersSellable(offers: readonly ElementOffer[], quantity: number) {
  for (const offer of offers) {
    const label = `offer ${offer.id}`;
    if (offer.archivedAt || offer.product.archivedAt) throw new ValidationFailed(`${label} is no longer available`);
    if (offer.status !== 'ACTIVE') throw new ValidationFailed(`${label} is not on sale`);
    if (offer.limit !== null && offer.limit - offer.soldItems < quantity) {
      const left = Math.max(0, offer.limit - offer.soldItems);
      throw new ValidationFailed(left === 0 ? `${label} is sold out` : `${label} is sold out for quantity ${quantity} (${left} left)`);
    }
  }
}

const pricingOffer = (offer: ElementOffer): PricingOffer => ({
  id: offer.id,
  productId: offer.productId,
  variantId: offer.variantId,
  name: offer.name ?? offer.product.name,
  price: offer.price,
  currency: offer.currency,
  productType: offer.product.type,
});

/** Where and how the buyer is taxed: the checked billing details, the workspace's tax settings, the rates in force `at`. */
const pricingTax = (billing: CheckedBillingDetails, workspace: TaxSettings, at: Date): PricingTax => ({
  location: { country: billing.countryCode, state: billing.state, postalCode: billing.postalCode },
  taxId: billing.taxId,
  pricesIncludeTax: workspace.pricesIncludeTax,
  registrations: taxRegistrations(workspace.taxRegistrations),
  noTaxData: workspace.noTaxData === 'refuse' ? 'refuse' : 'sell_without_tax',
  at,
});

/** The discount as pricing reads it: its API fields (discountResource) plus what availability needs. */
function pricingDiscount(d: Discount): PricingDiscount {
  const { id, type, name, amount, amountType, discountCode, validFrom, validUntil, purchaseLimit, timesUsed, status, currency } = discountResource(d);
  const { includedOfferIds, excludedOfferIds } = d;
  return { id, type, name, amount, amountType, discountCode, validFrom, validUntil, purchaseLimit, timesUsed, status, currency, includedOfferIds, excludedOfferIds, archived: d.archivedAt !== null, createdAt: d.createdAt.getTime() };
}

// Raw SQL: Prisma's insensitive equals is an unescaped ILIKE, where _ in a code would be a wildcard.
/** The unarchived code discount of the scope whose code matches ignoring case (codes are unique that way), or null. */
async function codeDiscountId(db: PrismaClient | Tx, scope: Scope, code: string): Promise<string | null> {
  const rows = await db.$queryRaw<{ id: string }[]>`
    SELECT id FROM "Discount"
    WHERE "workspaceId" = ${scope.workspaceId}::uuid AND livemode = ${scope.livemode} AND "archivedAt" IS NULL
      AND type = 'code' AND lower("discountCode") = lower(${code})
    ORDER BY id LIMIT 1`;
  return rows[0]?.id ?? null;
}

const liveSales = (db: PrismaClient | Tx, scope: Scope) => db.discount.findMany({ where: { ...inScope(scope), type: 'sale', status: 'active', archivedAt: null } });

/** `POST /checkout/{id}/quote`: what the order would cost at `now` (no locks, nothing written). */
export async function quoteCheckout(prisma: PrismaClient, checkoutElementId: string, request: QuoteRequest, now: Clock = systemClock): Promise<CheckoutQuote> {
  const at = now();
  const quantity = checkQuantity(request.quantity);
  const billing = request.billingDetails ? checkBillingDetails(request.billingDetails) : null;
  const { element, scope, offers, workspace } = await sellingElement(prisma, checkoutElementId);
  checkOffersSellable(offers, quantity);
  const sent = normalizeDiscountCode(request.discountCode);
  let code: { sent: string; discount: PricingDiscount | null } | null = null;
  let sales: PricingDiscount[] = [];
  if (sent) {
    const id = await codeDiscountId(prisma, scope, sent);
    const discount = id ? await prisma.discount.findUnique({ where: { id } }) : null;
    code = { sent, discount: discount && pricingDiscount(discount) };
  } else {
    sales = (await liveSales(prisma, scope)).map(pricingDiscount);
  }
  const tax = billing && pricingTax(billing, workspace, at);
  const price = priceCheckout({ offers: offers.map(pricingOffer), quantity, code, sales, nowSeconds: unixSeconds(at), tax });
  return { checkoutElementId: element.id, livemode: element.livemode, ...price };
}

async function lockDiscounts(tx: Tx, ids: readonly string[]): Promise<Discount[]> {
  if (ids.length === 0) return [];
  const sorted = [...ids].sort();
  await tx.$queryRaw`SELECT id FROM "Discount" WHERE id = ANY(${sorted}::uuid[]) ORDER BY id FOR UPDATE`;
  return tx.discount.findMany({ where: { id: { in: sorted } } });
}

/**
 * The discount of this order under its row lock: the code's (400 when it cannot be used), or the
 * best usable sale. Sales that could apply are all locked (in id order) before choosing, so two
 * checkouts never lock them in different orders.
 */
async function lockedPrice(tx: Tx, scope: Scope, offers: PricingOffer[], quantity: number, sent: string | null, tax: PricingTax): Promise<CheckoutPrice> {
  const now = unixSeconds(tax.at);
  if (sent) {
    const id = await codeDiscountId(tx, scope, sent);
    const [discount] = id ? await lockDiscounts(tx, [id]) : [];
    const price = priceCheckout({ offers, quantity, code: { sent, discount: discount ? pricingDiscount(discount) : null }, sales: [], nowSeconds: now, tax });
    if (price.discountRejection) throw new ValidationFailed(price.discountRejection);
    return price;
  }
  const unlocked = (await liveSales(tx, scope)).map(pricingDiscount);
  const candidates = unlocked.filter((sale) => priceCheckout({ offers, quantity, code: null, sales: [sale], nowSeconds: now, tax: null }).discount !== null);
  const sales = (await lockDiscounts(tx, candidates.map((sale) => sale.id))).map(pricingDiscount);
  return priceCheckout({ offers, quantity, code: null, sales, nowSeconds: now, tax });
}

/** The scope's user with this email (any case, archived ones too: the address stays theirs), created when there is none. */
async function buyerFor(tx: Tx, scope: Scope, email: string, { countryCode, postalCode, state }: CheckedBillingDetails) {
  const emailNormalized = email.toLowerCase();
  const where = { ...inScope(scope), emailNormalized };
  const found = await tx.user.findFirst({ where });
  if (found) return found;
  // ON CONFLICT DO NOTHING: a concurrent checkout creating the same buyer makes this wait, then find
  // theirs. In SQL of our own (Prisma compiles a createMany anew at every call), returning the row
  // it wrote (every column, as Prisma reads them).
  const billingDetails = { countryCode, postalCode, state, city: null, line1: null, line2: null, name: null };
  const [created] = await tx.$queryRaw<User[]>`
    INSERT INTO "User" (id, "workspaceId", livemode, email, "emailNormalized", "billingDetails", "updatedAt")
    VALUES (${uuidv7()}::uuid, ${scope.workspaceId}::uuid, ${scope.livemode}, ${email}, ${emailNormalized}, ${JSON.stringify(billingDetails)}::jsonb, ${new Date()})
    ON CONFLICT ("workspaceId", livemode, "emailNormalized") DO NOTHING
    RETURNING *`;
  if (!created) return tx.user.findFirstOrThrow({ where });
  await recordEvent(tx, scope, 'user_created', userEventData(created));
  return created;
}

/** The order and its first payment, in one transaction; returns their ids. */
async function placeOrder(prisma: PrismaClient, processor: PaymentProcessor, checkoutElementId: string, request: CheckedOrderRequest, key: { value: string; hash: string } | null, at: Date): Promise<NewlyPlaced> {
  return prisma.$transaction(async (tx) => {
    const { element, scope, offers: elementOffers, workspace } = await sellingElement(tx, checkoutElementId);
    const ids = key ? await claimKeyForOrder(tx, scope, checkoutTarget(element.id), key.value, key.hash) : undefined;
    const offerIds = elementOffers.map((offer) => offer.id);
    for (const offerId of Object.keys(request.customFields)) {
      if (!offerIds.includes(offerId)) throw new ValidationFailed(`customFields: ${offerId} is not an offer of this checkout element`);
    }
    const locked = await lockOffers(tx, offerIds);
    const offers = offerIds.map((id) => locked.get(id)!);
    checkOffersSellable(offers, request.quantity);
    const price = await lockedPrice(tx, scope, offers.map(pricingOffer), request.quantity, request.discountCode, pricingTax(request.billingDetails, workspace, at));
    if (price.requiresPayment && request.method === 'card' && !request.card && !request.paymentMethod) throw new ValidationFailed('card is required to pay with method card (or paymentMethod: a card tokenized in the browser)');
    const user = await buyerFor(tx, scope, request.email, request.billingDetails);
    const recurring = offers.find((offer) => offer.recurringInterval !== null);
    // A trial saves the card without charging it, to charge it off-session when the trial ends.
    if (recurring?.trialInterval && price.requiresPayment && (request.method !== 'card' || !processor.capabilities.savedPaymentMethods)) {
      throw new ValidationFailed('A trial is started with a card (charged when the trial ends)');
    }
    const items: NewOrderItem[] = price.lines.map((line) => ({
      offerId: line.offerId,
      productId: line.productId,
      variantId: line.variantId,
      quantity: line.quantity,
      unitPrice: line.unitPrice,
      discount: line.discount,
      tax: line.tax,
      taxInclusive: line.taxInclusive,
      customFields: request.customFields[line.offerId] ?? null,
    }));
    const created = await createOrder(tx, scope, {
      user,
      currency: price.currency,
      country: request.billingDetails.countryCode,
      billingState: request.billingDetails.state,
      billingPostalCode: request.billingDetails.postalCode,
      taxInclusive: price.taxInclusive,
      taxId: request.billingDetails.taxId,
      taxReason: price.taxReason,
      checkoutId: element.id,
      ids,
      // The reservations below, in this transaction.
      reservedAt: new Date(),
      discountId: price.discount?.id ?? null,
      items,
      payment: price.requiresPayment ? { processor: processor.name, methodType: request.method } : { processor: null, methodType: null },
      subscription: recurring?.recurringInterval
        ? {
            recurringInterval: recurring.recurringInterval,
            recurringIntervalCount: recurring.recurringIntervalCount,
            trialInterval: recurring.trialInterval,
            trialIntervalCount: recurring.trialIntervalCount,
          }
        : null,
    });
    // The reservations, given back by releaseOrderReservations if the first payment ends unpaid.
    for (const line of price.lines) await tx.offer.update({ where: { id: line.offerId }, data: { soldItems: { increment: line.quantity } } });
    if (price.discount) await tx.discount.update({ where: { id: price.discount.id }, data: { timesUsed: { increment: 1 } } });
    await reserveLicenseKeys(tx, scope, created.items.map((item) => ({ ...item, productType: offers.find((offer) => offer.id === item.offerId)!.product.type })));
    // A free order is paid at once: no processor, the same transition (and payment_success) as a charge.
    const payment = price.requiresPayment ? created.payment : (await markPaymentPaid(tx, created.payment.id)).payment;
    return { orderId: created.order.id, paymentId: payment.id, payment: { ...payment, charges: [], subscription: created.subscription, user: { email: user.email } } };
  });
}

const collectedPayment = { charges: { where: { attempt: 0 } }, subscription: true, user: { select: { email: true } } } satisfies Prisma.PaymentInclude;
/** The payment as collectPayment reads it: its first charge (if made), its subscription and its buyer's email. */
type CollectedPayment = Prisma.PaymentGetPayload<{ include: typeof collectedPayment }>;

/** An order just placed: its ids, and its payment as the transaction left it (no charge yet), so that collecting it reads nothing first. */
type NewlyPlaced = Placed & { payment: CollectedPayment };

/**
 * After the commit: charges a processor payment still PENDING without a charge (startPayment,
 * idempotent by the payment's charge key), applies an immediate outcome so the answer shows it
 * (the payment workflow applies the same, idempotently), and answers 402 for a decline. Returns
 * the payment's status as it left it. `placed`: the payment as this request's transaction wrote
 * it; a repeated request reads it.
 */
async function collectPayment(deps: CheckoutDeps, paymentId: string, source: CardSource, placed?: CollectedPayment): Promise<PaymentStatus> {
  const { prisma } = deps;
  const payment = placed ?? (await prisma.payment.findUniqueOrThrow({ where: { id: paymentId }, include: collectedPayment }));
  const given = { card: source.card ?? undefined, paymentMethod: source.paymentMethod ?? undefined };
  if (payment.status === 'PENDING' && payment.amount === 0 && payment.subscription?.trialInterval && (given.card || given.paymentMethod)) {
    await startTrial(deps, payment, given);
    return 'PAID';
  }
  // Paid by the order's own transaction (a free order: no processor, no charge): nothing to collect or read.
  if (!payment.processor && payment.status === 'PAID') return 'PAID';
  // The charge as this call recorded it, else (a retried checkout) as an earlier one did.
  let recorded: RecordedCharge | null = null;
  if (payment.processor && payment.status === 'PENDING' && payment.charges.length === 0) {
    try {
      recorded = (await startPayment(prisma, deps.temporal, deps.processor, { paymentId, payment, ...given })).charge;
    } catch (error) {
      // The charge may exist at the processor: the payment stays PENDING; a retry with the same
      // Idempotency-Key (same charge key) or the processor's webhook settles it.
      if (error instanceof ProcessorUnavailable) throw new CheckoutProcessorUnavailable('The payment processor is unavailable; retry with the same Idempotency-Key');
      // Refused before any charge existed (a request the processor does not take): the order fails, its reservations go back.
      if (error instanceof ProcessorError) {
        const failure = { failureCode: error.code, failureMessage: error.message };
        await prisma.$transaction((tx) => markPaymentFailed(tx, paymentId, failure));
        throw new ValidationFailed(`The payment could not be made: ${error.message}`);
      }
      throw error;
    }
  }
  const charge = recorded ?? (await prisma.charge.findUnique({ where: { paymentId_attempt: { paymentId, attempt: 0 } } }));
  let applied: PaymentStatus | null = null;
  if (charge) {
    try {
      applied = await applyRecordedCharge(prisma, paymentId, charge);
    } catch (error) {
      // The workflow (or a webhook) moved it first, otherwise: its outcome stands.
      if (!(error instanceof PaymentTransitionRefused)) throw error;
    }
  }
  // Paid by what was just applied: no read (the read is for a failure's message, or an outcome applied elsewhere).
  if (applied === 'PAID') return 'PAID';
  const final = await prisma.payment.findUniqueOrThrow({ where: { id: paymentId }, select: { status: true, failureMessage: true } });
  if (final.status === 'FAILED') throw new PaymentDeclined(final.failureMessage ?? 'The payment was declined');
  return final.status;
}

/**
 * A trial: the card is checked and saved by a zero-amount setup at the processor (keyed by the
 * payment, so a retried checkout gets the same method), then the payment (of 0) is PAID, which
 * starts the subscription `trialing` and its workflow; a declined card fails the order (402).
 */
async function startTrial(
  deps: CheckoutDeps,
  payment: { id: string; livemode: boolean; orderId: string; sequence: number; subscriptionId: string | null; user: { email: string } | null },
  source: { card?: CardDetails; paymentMethod?: string },
): Promise<void> {
  let setup;
  try {
    setup = await deps.processor.setupPaymentMethod({ idempotencyKey: `payment/${payment.id}/setup`, ...source, email: payment.user?.email ?? '', livemode: payment.livemode, metadata: { orderId: payment.orderId, paymentId: payment.id } });
  } catch (error) {
    if (error instanceof ProcessorUnavailable) throw new CheckoutProcessorUnavailable('The payment processor is unavailable; retry with the same Idempotency-Key');
    if (error instanceof CardDeclined) setup = { status: 'failed' as const, failureCode: error.code, failureMessage: error.message };
    else throw error;
  }
  if (setup.status !== 'succeeded') {
    // No buyerPresent here: a card that needs 3-D Secure is not asked for it, it fails the trial.
    const failure = setup.status === 'failed' ? { failureCode: setup.failureCode, failureMessage: setup.failureMessage } : { failureCode: 'authentication_required', failureMessage: DECLINE_MESSAGES.authentication_required! };
    await deps.prisma.$transaction((tx) => markPaymentFailed(tx, payment.id, failure));
    throw new PaymentDeclined(failure.failureMessage);
  }
  const ref = setup.paymentMethod.ref;
  await deps.prisma.$transaction(async (tx) => {
    await tx.subscription.update({ where: { id: payment.subscriptionId! }, data: { paymentMethodRef: ref } });
    await markPaymentPaid(tx, payment.id);
  });
  await notifyPaymentPaid(deps, payment);
}

/**
 * `POST /checkout/{id}/orders`: places the order (one transaction), then collects its payment.
 * With an Idempotency-Key, a repeat of the same request gets the same order and payment back
 * (and the payment is charged if the first attempt never reached the processor); another request
 * body with that key is 400. A declined card throws PaymentDeclined (402) after the FAILED order
 * and payment are stored.
 */
export async function createCheckoutOrder(deps: CheckoutDeps, checkoutElementId: string, request: CheckoutOrderRequest, idempotencyKey?: string): Promise<Placed & { status: PaymentStatus }> {
  checkIdempotencyKey(idempotencyKey);
  const checked = checkOrderRequest(request, deps.processor);
  const key = idempotencyKey === undefined ? null : { value: idempotencyKey, hash: requestHash(checked) };
  let placed: Placed | NewlyPlaced | null = key ? await earlierOrder(deps.prisma, checkoutTarget(checkoutElementId), key.value, key.hash) : null;
  if (!placed) {
    try {
      placed = await placeOrder(deps.prisma, deps.processor, checkoutElementId, checked, key, (deps.now ?? systemClock)());
    } catch (error) {
      if (!(error instanceof KeyTaken) || !key) throw error;
      placed = await earlierOrder(deps.prisma, checkoutTarget(checkoutElementId), key.value, key.hash);
      if (!placed) throw new ValidationFailed('Idempotency-Key is in use by a request that has not finished; retry');
    }
  }
  const status = await collectPayment(deps, placed.paymentId, checked, 'payment' in placed ? placed.payment : undefined);
  return { orderId: placed.orderId, paymentId: placed.paymentId, status };
}
