import { Prisma, type OfferStatus, type PrismaClient, type RecurringInterval } from '../generated/prisma/client.js';
import type { Db } from '../db/client.js';
import { NotFound, ValidationFailed } from '../core/errors.js';
import { recordEvent } from '../events/event-service.js';
import { inScope, type Scope } from '../core/scope.js';
import { archivedWhere, direction, offsetPage, termOrIdWhere, type OffsetListArgs } from '../core/list.js';
import { isCurrency } from '../reference/currencies.js';
import { offerEventData } from './events.js';
import { claimArchive } from '../core/archive.js';

const GTIN = /^(\d{8}|\d{12,14})$/;

interface RecurringTerms {
  recurringInterval: RecurringInterval | null;
  recurringIntervalCount: number | null;
  trialInterval: RecurringInterval | null;
  trialIntervalCount: number | null;
}

/** Writable offer fields. On update, absent (undefined) keeps the stored value and null clears it. */
export interface OfferFields {
  internalId?: string | null;
  name?: string | null;
  description?: string | null;
  price?: number | null;
  originalPrice?: number | null;
  currency?: string | null;
  recurringInterval?: RecurringInterval | null;
  recurringIntervalCount?: number | null;
  trialInterval?: RecurringInterval | null;
  trialIntervalCount?: number | null;
  limit?: number | null;
  status?: OfferStatus | null;
  region?: string | null;
  platform?: string | null;
  gtin?: string | null;
  warningMessage?: string | null;
  variantId?: string | null;
}

export interface CreateOfferInput extends OfferFields {
  productId: string;
  price: number;
  currency: string;
}

export interface OfferListArgs extends OffsetListArgs {
  termOrId?: string | null;
  regions?: string[] | null;
  platforms?: string[] | null;
  minPrice?: number | null;
  maxPrice?: number | null;
  minAvailability?: number | null;
  maxAvailability?: number | null;
  recurringInterval?: RecurringInterval | null;
  recurringIntervalCount?: number | null;
  product?: string | null;
  tags?: string[] | null;
  orderBy?: 'createdAt' | 'price' | 'name' | 'soldItems' | null;
}

type Query = { select?: Prisma.OfferSelect; include?: Prisma.OfferInclude };

const NO_RECURRING: RecurringTerms = { recurringInterval: null, recurringIntervalCount: null, trialInterval: null, trialIntervalCount: null };

function checkFields(fields: OfferFields) {
  const nonNull = ['price', 'currency', 'status', 'region', 'platform'] as const;
  for (const name of nonNull) if (fields[name] === null) throw new ValidationFailed(`${name} cannot be null`);
  const amounts = ['price', 'originalPrice', 'limit'] as const;
  for (const name of amounts) {
    const value = fields[name];
    if (value !== undefined && value !== null && value < 0) throw new ValidationFailed(`${name} must be >= 0`);
  }
  const counts = ['recurringIntervalCount', 'trialIntervalCount'] as const;
  for (const name of counts) {
    const value = fields[name];
    if (value !== undefined && value !== null && value < 1) throw new ValidationFailed(`${name} must be >= 1`);
  }
  if (fields.currency && !isCurrency(fields.currency)) throw new ValidationFailed(`currency ${fields.currency} is not a supported currency code`);
  for (const name of ['region', 'platform'] as const) {
    const value = fields[name];
    // Maximum lengths are checked for every input in one place (graphql/input-limits.ts).
    if (value !== undefined && value !== null && value.trim() === '') throw new ValidationFailed(`${name} must not be empty`);
  }
  if (fields.gtin && !GTIN.test(fields.gtin)) throw new ValidationFailed('gtin must be 8, 12, 13 or 14 digits');
}

/**
 * The recurring and trial fields once `sent` is applied to `current`. A count only means something
 * with its interval: it defaults to 1 beside one, and a trial only exists on a subscription offer.
 */
function recurringTerms(current: RecurringTerms, sent: OfferFields): RecurringTerms {
  const pick = <K extends keyof RecurringTerms>(name: K): RecurringTerms[K] => (sent[name] !== undefined ? sent[name] : current[name]) as RecurringTerms[K];
  const recurringInterval = pick('recurringInterval');
  const trialInterval = pick('trialInterval');
  if (!recurringInterval) {
    if (sent.recurringIntervalCount != null) throw new ValidationFailed('recurringIntervalCount needs recurringInterval');
    if (sent.trialInterval != null || sent.trialIntervalCount != null) {
      throw new ValidationFailed('trialInterval and trialIntervalCount are for subscription offers only: set recurringInterval');
    }
    return NO_RECURRING;
  }
  if (!trialInterval && sent.trialIntervalCount != null) throw new ValidationFailed('trialIntervalCount needs trialInterval');
  return {
    recurringInterval,
    recurringIntervalCount: pick('recurringIntervalCount') ?? 1,
    trialInterval,
    trialIntervalCount: trialInterval ? (pick('trialIntervalCount') ?? 1) : null,
  };
}

/** Prisma data for the non-recurring fields that were sent. */
function offerData(fields: OfferFields) {
  const data: Prisma.OfferUncheckedUpdateInput = {};
  if (fields.internalId !== undefined) data.internalId = fields.internalId;
  if (fields.name !== undefined) data.name = fields.name;
  if (fields.description !== undefined) data.description = fields.description;
  if (fields.price != null) data.price = fields.price;
  if (fields.originalPrice !== undefined) data.originalPrice = fields.originalPrice;
  if (fields.currency != null) data.currency = fields.currency;
  if (fields.limit !== undefined) data.limit = fields.limit;
  if (fields.status != null) data.status = fields.status;
  if (fields.region != null) data.region = fields.region.trim();
  if (fields.platform != null) data.platform = fields.platform.trim();
  if (fields.gtin !== undefined) data.gtin = fields.gtin;
  if (fields.warningMessage !== undefined) data.warningMessage = fields.warningMessage;
  if (fields.variantId !== undefined) data.variantId = fields.variantId;
  return data;
}

/**
 * Locks the product row for the rest of the transaction, so concurrent offer writes on one
 * product recompute its lowest price one after the other. Null when it is not a live product of the scope.
 */
async function lockLiveProduct(tx: Prisma.TransactionClient, scope: Scope, productId: string) {
  const rows = await tx.$queryRaw<{ id: string }[]>`
    SELECT id FROM "Product"
    WHERE id = ${productId}::uuid AND "workspaceId" = ${scope.workspaceId}::uuid AND livemode = ${scope.livemode} AND "archivedAt" IS NULL
    FOR UPDATE`;
  return rows[0] ?? null;
}

/** Product.lowestPrice (products orderBy=price) follows the minimum price of the live offers. */
async function refreshLowestPrice(tx: Prisma.TransactionClient, productId: string) {
  await tx.$executeRaw`
    UPDATE "Product" SET "lowestPrice" = (SELECT MIN(price) FROM "Offer" WHERE "productId" = ${productId}::uuid AND "archivedAt" IS NULL)
    WHERE id = ${productId}::uuid`;
}

async function checkVariant(tx: Prisma.TransactionClient, productId: string, variantId: string | null | undefined) {
  if (!variantId) return;
  const variant = await tx.variant.findFirst({ where: { id: variantId, productId, archivedAt: null }, select: { id: true } });
  if (!variant) throw new ValidationFailed('variantId does not name a live variant of the offer\'s product');
}

export async function findOffer(prisma: Db, scope: Scope, offerId: string, query: Query = {}) {
  const offer = await prisma.offer.findFirst({ ...query, where: { id: offerId, ...inScope(scope), archivedAt: null } });
  if (!offer) throw new NotFound('Offer');
  return offer;
}

export async function createOffer(prisma: PrismaClient, scope: Scope, input: CreateOfferInput, query: Query) {
  checkFields(input);
  const terms = recurringTerms(NO_RECURRING, input);
  return prisma.$transaction(async (tx) => {
    const product = await lockLiveProduct(tx, scope, input.productId);
    if (!product) throw new ValidationFailed('productId does not name a live product of this workspace');
    await checkVariant(tx, product.id, input.variantId);
    const offer = await tx.offer.create({
      ...query,
      data: { ...(offerData(input) as Prisma.OfferUncheckedCreateInput), ...terms, ...inScope(scope), productId: product.id, price: input.price, currency: input.currency },
    });
    await refreshLowestPrice(tx, product.id);
    await recordEvent(tx, scope, 'offer_created', offerEventData(offer));
    return offer;
  });
}

export async function updateOffer(prisma: PrismaClient, scope: Scope, offerId: string, fields: OfferFields & { id?: string | null }, query: Query) {
  if (fields.id != null && fields.id !== offerId) throw new ValidationFailed('id in the body does not match the offerId of the path');
  checkFields(fields);
  const { productId } = await findOffer(prisma, scope, offerId, { select: { productId: true } });
  return prisma.$transaction(async (tx) => {
    await lockLiveProduct(tx, scope, productId);
    const current = await findOffer(tx, scope, offerId);
    const terms = recurringTerms(current, fields);
    const changesKind = Boolean(terms.recurringInterval) !== Boolean(current.recurringInterval);
    const changesCurrency = fields.currency != null && fields.currency !== current.currency;
    // A checkout element's configuration rules were checked against the offer's kind and currency.
    if (changesKind || changesCurrency) {
      const uses = await tx.checkoutElementOffer.count({ where: { offerId, checkoutElement: { archivedAt: null } } });
      if (uses > 0) throw new ValidationFailed('The offer is used by a checkout element: its currency and its one-time/subscription kind cannot change; create a new offer');
    }
    await checkVariant(tx, current.productId, fields.variantId);
    const offer = await tx.offer.update({ ...query, where: { id: offerId }, data: { ...offerData(fields), ...terms } });
    if (fields.price != null) await refreshLowestPrice(tx, current.productId);
    await recordEvent(tx, scope, 'offer_updated', offerEventData(offer));
    return offer;
  });
}

export async function archiveOffer(prisma: PrismaClient, scope: Scope, offerId: string) {
  const { productId } = await findOffer(prisma, scope, offerId, { select: { productId: true } });
  await prisma.$transaction(async (tx) => {
    await lockLiveProduct(tx, scope, productId);
    await claimArchive('Offer', (now) => tx.offer.updateMany({ where: { id: offerId, archivedAt: null }, data: { archivedAt: now } }));
    await refreshLowestPrice(tx, productId);
    await recordEvent(tx, scope, 'offer_archived', offerEventData(await tx.offer.findUniqueOrThrow({ where: { id: offerId } })));
  });
  return { success: true };
}

/** A product was archived (products' hook, in its transaction): its live offers are archived with it, and their subscribers hear of it too. */
export async function archiveOffersOfProduct(tx: Prisma.TransactionClient, scope: Scope, productId: string, archivedAt: Date) {
  const offers = await tx.offer.findMany({ where: { productId, archivedAt: null }, orderBy: { createdAt: 'asc' } });
  await tx.offer.updateMany({ where: { id: { in: offers.map((o) => o.id) } }, data: { archivedAt } });
  for (const offer of offers) await recordEvent(tx, scope, 'offer_archived', offerEventData(offer));
}

/**
 * Ids of the scope's offers whose availability (limit - soldItems) is within the bounds. An
 * unlimited offer (limit null) meets every minimum and no maximum. Raw SQL because Prisma cannot
 * filter on an expression over two columns.
 */
async function offerIdsByAvailability(prisma: PrismaClient, scope: Scope, min: number | null | undefined, max: number | null | undefined) {
  const conditions = [Prisma.sql`"workspaceId" = ${scope.workspaceId}::uuid`, Prisma.sql`livemode = ${scope.livemode}`];
  if (min != null) conditions.push(Prisma.sql`("limit" IS NULL OR "limit" - "soldItems" >= ${min})`);
  if (max != null) conditions.push(Prisma.sql`("limit" IS NOT NULL AND "limit" - "soldItems" <= ${max})`);
  const rows = await prisma.$queryRaw<{ id: string }[]>`SELECT id FROM "Offer" WHERE ${Prisma.join(conditions, ' AND ')}`;
  return rows.map((row) => row.id);
}

export async function offerListWhere(prisma: PrismaClient, scope: Scope, args: OfferListArgs): Promise<Prisma.OfferWhereInput> {
  for (const name of ['minPrice', 'maxPrice'] as const) {
    const value = args[name];
    if (value != null && value < 0) throw new ValidationFailed(`${name} must be >= 0`);
  }
  const and: Prisma.OfferWhereInput[] = [inScope(scope), archivedWhere(args)];
  if (args.regions) and.push({ region: { in: args.regions } });
  if (args.platforms) and.push({ platform: { in: args.platforms } });
  if (args.minPrice != null) and.push({ price: { gte: args.minPrice } });
  if (args.maxPrice != null) and.push({ price: { lte: args.maxPrice } });
  if (args.recurringInterval) and.push({ recurringInterval: args.recurringInterval });
  if (args.recurringIntervalCount != null) and.push({ recurringIntervalCount: args.recurringIntervalCount });
  if (args.product) and.push({ productId: args.product });
  if (args.tags) and.push({ product: { tags: { hasSome: args.tags } } });
  if (args.minAvailability != null || args.maxAvailability != null) {
    and.push({ id: { in: await offerIdsByAvailability(prisma, scope, args.minAvailability, args.maxAvailability) } });
  }
  if (args.termOrId) and.push(termOrIdWhere(args.termOrId, ['name', 'description']));
  return { AND: and };
}

export async function listOffers(prisma: PrismaClient, scope: Scope, args: OfferListArgs, query: Query) {
  const { skip, take } = offsetPage(args, 20);
  const where = await offerListWhere(prisma, scope, args);
  const dir = direction(args);
  const orderBy: Prisma.OfferOrderByWithRelationInput[] =
    args.orderBy === 'price'
      ? [{ price: dir }]
      : args.orderBy === 'name'
        ? [{ name: { sort: dir, nulls: 'last' } }]
        : args.orderBy === 'soldItems'
          ? [{ soldItems: dir }]
          : [];
  orderBy.push({ createdAt: dir }, { id: dir });
  const [offers, count] = await Promise.all([
    prisma.offer.findMany({ ...query, where, orderBy, skip, take }),
    args.returnCount ? prisma.offer.count({ where }) : null,
  ]);
  return { offers, count };
}
