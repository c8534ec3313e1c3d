import { randomInt } from 'node:crypto';
import { Prisma, type Discount, type DiscountAmountType, type DiscountDuration, type DiscountStatus, type DiscountType, type PrismaClient } from '../generated/prisma/client.js';
import type { Db } from '../db/client.js';
import { NotFound, ValidationFailed } from '../core/errors.js';
import { MAX_MONEY } from '../core/money.js';
import { recordEvent } from '../events/event-service.js';
import { inScope, type Scope } from '../core/scope.js';
import { archivedWhere, direction, offsetPage, termOrIdWhere, type OffsetListArgs } from '../core/list.js';
import { isCurrency } from '../reference/currencies.js';
import { discountEventData, timestampOrNull } from './events.js';
import { lockScope } from '../core/slots.js';
import { claimArchive } from '../core/archive.js';

const DEFAULT_CURRENCY = 'USD';
const DISCOUNT_LIST_TAKE = 20;
// The column is Decimal(18, 4): at most four decimal places are stored, so more are refused.
const AMOUNT_DECIMAL_PLACES = 4;
// Fixed amounts are minor units like offer prices, which are 32-bit integers.
const CODE_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
// Generated codes avoid look-alike characters (0/O, 1/I/L) so buyers can type them.
const CODE_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
const CODE_LENGTH = 8;
// Fields the model cannot store as null: an explicit null is refused rather than guessed at.
const NOT_NULLABLE = ['type', 'amount', 'amountType', 'status', 'currency', 'timezone', 'duration'] as const;

export interface DiscountFields {
  type?: DiscountType | null;
  name?: string | null;
  amount?: number | null;
  amountType?: DiscountAmountType | null;
  discountCode?: string | null;
  validFrom?: number | null;
  validUntil?: number | null;
  purchaseLimit?: number | null;
  duration?: DiscountDuration | null;
  durationInMonths?: number | null;
  status?: DiscountStatus | null;
  includedOffers?: string[] | null;
  excludedOffers?: string[] | null;
  currency?: string | null;
  timezone?: string | null;
}

export interface CreateDiscountInput extends DiscountFields {
  type: DiscountType;
  amount: number;
  amountType: DiscountAmountType;
}

export interface DiscountListArgs extends OffsetListArgs {
  ids?: string[] | null;
  termOrId?: string | null;
  status?: DiscountStatus | null;
  type?: DiscountType | null;
  currency?: string | null;
  validFrom?: number | null;
  validUntil?: number | null;
  expired?: boolean | null;
  orderBy?: 'createdAt' | 'name' | 'amount' | null;
}

// Discount has no relations, so the query Pothos passes selects nothing away: a write's result is
// the whole row, which is also what its event reports.
type Query = { select?: Prisma.DiscountSelect };

const nowSeconds = () => Math.floor(Date.now() / 1000);

export function discountListWhere(scope: Scope, args: DiscountListArgs): Prisma.DiscountWhereInput {
  const and: Prisma.DiscountWhereInput[] = [inScope(scope), archivedWhere(args)];
  if (args.ids) and.push({ id: { in: args.ids } });
  if (args.status) and.push({ status: args.status });
  if (args.type) and.push({ type: args.type });
  if (args.currency) and.push({ currency: checkCurrency(args.currency) });
  if (args.validFrom !== undefined && args.validFrom !== null) and.push({ validFrom: { gte: args.validFrom } });
  if (args.validUntil !== undefined && args.validUntil !== null) and.push({ validUntil: { lte: args.validUntil } });
  if (args.expired === true) and.push({ validUntil: { lt: nowSeconds() } });
  if (args.expired === false) and.push({ OR: [{ validUntil: null }, { validUntil: { gte: nowSeconds() } }] });
  if (args.termOrId) and.push(termOrIdWhere(args.termOrId, ['name', 'discountCode']));
  return { AND: and };
}

export async function listDiscounts(prisma: PrismaClient, scope: Scope, args: DiscountListArgs, query: Query) {
  const { skip, take } = offsetPage(args, DISCOUNT_LIST_TAKE);
  const where = discountListWhere(scope, args);
  const dir = direction(args);
  const orderBy: Prisma.DiscountOrderByWithRelationInput[] =
    args.orderBy === 'name' ? [{ name: { sort: dir, nulls: 'last' } }] : args.orderBy === 'amount' ? [{ amount: dir }] : [];
  orderBy.push({ createdAt: dir }, { id: dir });
  const [discounts, count] = await Promise.all([
    prisma.discount.findMany({ ...query, where, orderBy, skip, take }),
    args.returnCount ? prisma.discount.count({ where }) : null,
  ]);
  return { discounts, count };
}

export async function findDiscount(prisma: Db, scope: Scope, discountId: string, query: Query = {}) {
  const discount = await prisma.discount.findFirst({ ...query, where: { id: discountId, ...inScope(scope), archivedAt: null } });
  if (!discount) throw new NotFound('Discount');
  return discount;
}

/**
 * The included offers that still exist in the discount's scope (archived ones too: a discount
 * stays for reporting), in the order the discount lists them, each with its product.
 */
export async function includedOffers(prisma: PrismaClient, discount: Pick<Discount, 'workspaceId' | 'livemode' | 'includedOfferIds'>) {
  if (discount.includedOfferIds.length === 0) return [];
  const offers = await prisma.offer.findMany({
    where: { id: { in: discount.includedOfferIds }, workspaceId: discount.workspaceId, livemode: discount.livemode },
    select: { id: true, internalId: true, name: true, productId: true, product: { select: { id: true, name: true } } },
  });
  const position = new Map(discount.includedOfferIds.map((id, index) => [id, index]));
  return offers.sort((a, b) => (position.get(a.id) ?? 0) - (position.get(b.id) ?? 0));
}

export const usageOf = (discount: Pick<Discount, 'timesUsed' | 'purchaseLimit'>) => ({
  timesUsed: discount.timesUsed,
  purchaseLimit: discount.purchaseLimit,
  remainingUses: discount.purchaseLimit === null ? null : Math.max(0, discount.purchaseLimit - discount.timesUsed),
});

function checkCurrency(currency: string): string {
  if (!isCurrency(currency)) throw new ValidationFailed(`currency ${JSON.stringify(currency)} is not a supported currency code`);
  return currency;
}

function checkTimezone(timezone: string) {
  const zone = timezone.trim();
  // Intl also accepts offsets such as +01:00 on newer engines; the field names IANA zones only.
  if (!/^[A-Za-z]/.test(zone)) throw new ValidationFailed('timezone must be an IANA time zone name such as Europe/Berlin');
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
  } catch {
    throw new ValidationFailed(`timezone ${JSON.stringify(timezone)} is not a known IANA time zone`);
  }
}

function checkAmount(amount: number, amountType: DiscountAmountType) {
  if (amountType === 'percentage') {
    if (!(amount > 0 && amount <= 100)) throw new ValidationFailed('a percentage amount must be greater than 0 and at most 100');
    if (new Prisma.Decimal(amount).decimalPlaces() > AMOUNT_DECIMAL_PLACES) {
      throw new ValidationFailed(`a percentage amount has at most ${AMOUNT_DECIMAL_PLACES} decimal places`);
    }
  } else if (!Number.isInteger(amount) || amount < 1 || amount > MAX_MONEY) {
    throw new ValidationFailed(`a fixed amount is a whole number of minor currency units from 1 to ${MAX_MONEY}`);
  }
}

/** Checks each field that was sent on its own; rules across fields run on the merged result. */
function checkFields(fields: DiscountFields) {
  for (const name of NOT_NULLABLE) {
    if (fields[name] === null) throw new ValidationFailed(`${name} cannot be null`);
  }
  // The maximum length is checked for every input in one place (graphql/input-limits.ts).
  if (fields.name !== undefined && fields.name !== null && fields.name.trim() === '') throw new ValidationFailed('name must not be empty (send null to clear it)');
  if (fields.discountCode !== undefined && fields.discountCode !== null && !CODE_PATTERN.test(fields.discountCode)) {
    throw new ValidationFailed('discountCode must be 1 to 64 letters, digits, underscores or hyphens');
  }
  if (fields.purchaseLimit !== undefined && fields.purchaseLimit !== null && fields.purchaseLimit < 1) {
    throw new ValidationFailed('purchaseLimit must be at least 1 (send null for no limit)');
  }
  if (fields.currency !== undefined && fields.currency !== null) checkCurrency(fields.currency);
  if (fields.timezone !== undefined && fields.timezone !== null) checkTimezone(fields.timezone);
}

/** The discount as it will be after the write: stored values overlaid with the sent ones. */
interface DiscountState {
  type: DiscountType;
  amount: number;
  amountType: DiscountAmountType;
  discountCode: string | null;
  validFrom: number | null;
  validUntil: number | null;
  includedOfferIds: string[];
  excludedOfferIds: string[];
  duration: DiscountDuration;
  durationInMonths: number | null;
}

/** Most months a repeating discount lasts (10 years). */
const MAX_DURATION_MONTHS = 120;

function checkState(state: DiscountState) {
  checkAmount(state.amount, state.amountType);
  if (state.type === 'sale' && state.discountCode !== null) {
    throw new ValidationFailed('a sale discount applies automatically and has no discountCode; use type code for coupons');
  }
  if (state.validFrom !== null && state.validUntil !== null && state.validUntil < state.validFrom) {
    throw new ValidationFailed('validUntil must not be before validFrom');
  }
  if (state.duration === 'repeating' && (state.durationInMonths === null || !Number.isInteger(state.durationInMonths) || state.durationInMonths < 1 || state.durationInMonths > MAX_DURATION_MONTHS)) {
    throw new ValidationFailed(`a repeating discount needs durationInMonths, a whole number from 1 to ${MAX_DURATION_MONTHS}`);
  }
  if (state.duration !== 'repeating' && state.durationInMonths !== null) throw new ValidationFailed('durationInMonths is for repeating discounts only');
  const excluded = new Set(state.excludedOfferIds);
  const both = state.includedOfferIds.filter((id) => excluded.has(id));
  if (both.length) throw new ValidationFailed(`offers cannot be both included and excluded: ${both.join(', ')}`);
}

const unique = (ids: string[] | null | undefined) => [...new Set(ids ?? [])];

async function checkOffersExist(db: Db, scope: Scope, ids: string[]) {
  if (ids.length === 0) return;
  const found = await db.offer.findMany({ where: { id: { in: ids }, ...inScope(scope) }, select: { id: true } });
  const known = new Set(found.map((offer) => offer.id));
  const unknown = ids.filter((id) => !known.has(id));
  if (unknown.length) throw new ValidationFailed(`unknown offers for this workspace: ${unknown.join(', ')}`);
}

/**
 * Codes are unique case-insensitively among the unarchived discounts of one workspace mode.
 * The advisory lock serialises code writes per scope so two requests cannot take the same code.
 */
const lockCodes = (tx: Prisma.TransactionClient, scope: Scope) => lockScope(tx, scope, 'discount-codes');

// Raw SQL: Prisma's insensitive equals is an unescaped ILIKE, where _ in a code would be a wildcard.
async function codeTaken(tx: Prisma.TransactionClient, scope: Scope, code: string, exceptId?: string) {
  const rows = await tx.$queryRaw<{ id: string }[]>`
    SELECT id FROM "Discount"
    WHERE "workspaceId" = ${scope.workspaceId}::uuid AND livemode = ${scope.livemode} AND "archivedAt" IS NULL
      AND lower("discountCode") = lower(${code})`;
  return rows.some((row) => row.id !== exceptId);
}

const duplicateCode = (code: string) => new ValidationFailed(`discountCode ${code} is already used by another discount`);

async function freeCode(tx: Prisma.TransactionClient, scope: Scope): Promise<string> {
  for (;;) {
    const code = Array.from({ length: CODE_LENGTH }, () => CODE_ALPHABET[randomInt(CODE_ALPHABET.length)]).join('');
    if (!(await codeTaken(tx, scope, code))) return code;
  }
}

/** Prisma data for the simple fields that were sent; absent fields stay as they are. */
function discountData(fields: DiscountFields) {
  const data: Prisma.DiscountUncheckedUpdateInput = {};
  if (fields.type) data.type = fields.type;
  if (fields.name !== undefined) data.name = fields.name === null ? null : fields.name.trim();
  if (fields.amount !== undefined && fields.amount !== null) data.amount = new Prisma.Decimal(fields.amount);
  if (fields.amountType) data.amountType = fields.amountType;
  if (fields.validFrom !== undefined) data.validFrom = fields.validFrom === null ? null : BigInt(fields.validFrom);
  if (fields.validUntil !== undefined) data.validUntil = fields.validUntil === null ? null : BigInt(fields.validUntil);
  if (fields.purchaseLimit !== undefined) data.purchaseLimit = fields.purchaseLimit;
  if (fields.duration) data.duration = fields.duration;
  if (fields.durationInMonths !== undefined) data.durationInMonths = fields.durationInMonths;
  if (fields.status) data.status = fields.status;
  if (fields.currency !== undefined && fields.currency !== null) data.currency = fields.currency;
  if (fields.timezone !== undefined && fields.timezone !== null) data.timezone = fields.timezone.trim();
  if (fields.includedOffers !== undefined) data.includedOfferIds = unique(fields.includedOffers);
  if (fields.excludedOffers !== undefined) data.excludedOfferIds = unique(fields.excludedOffers);
  return data;
}

export async function createDiscount(prisma: PrismaClient, scope: Scope, input: CreateDiscountInput, query: Query) {
  checkFields(input);
  const data = discountData(input);
  const state: DiscountState = {
    type: input.type,
    amount: input.amount,
    amountType: input.amountType,
    discountCode: input.discountCode ?? null,
    validFrom: input.validFrom ?? null,
    validUntil: input.validUntil ?? null,
    includedOfferIds: unique(input.includedOffers),
    excludedOfferIds: unique(input.excludedOffers),
    duration: input.duration ?? 'once',
    durationInMonths: input.durationInMonths ?? null,
  };
  checkState(state);
  await checkOffersExist(prisma, scope, [...state.includedOfferIds, ...state.excludedOfferIds]);
  return prisma.$transaction(async (tx) => {
    let discountCode: string | null = null;
    if (state.type === 'code') {
      await lockCodes(tx, scope);
      if (state.discountCode !== null && (await codeTaken(tx, scope, state.discountCode))) throw duplicateCode(state.discountCode);
      discountCode = state.discountCode ?? (await freeCode(tx, scope));
    }
    const discount = await tx.discount.create({
      ...query,
      data: {
        ...(data as Prisma.DiscountUncheckedCreateInput),
        ...inScope(scope),
        discountCode,
        currency: input.currency ?? DEFAULT_CURRENCY,
      },
    });
    await recordEvent(tx, scope, 'discount_created', discountEventData(discount));
    return discount;
  });
}

export async function updateDiscount(prisma: PrismaClient, scope: Scope, discountId: string, fields: DiscountFields & { id?: string | null }, query: Query) {
  const { id, ...changes } = fields;
  if (id !== undefined && id !== null && id !== discountId) throw new ValidationFailed('id in the body does not match the discountId in the path');
  checkFields(changes);
  const data = discountData(changes);
  return prisma.$transaction(async (tx) => {
    await lockCodes(tx, scope);
    const current = await findDiscount(tx, scope, discountId);
    const type = changes.type ?? current.type;
    // Switching to sale drops the code; a code discount left without one gets a generated code.
    let discountCode = changes.discountCode !== undefined ? changes.discountCode : type === 'sale' ? null : current.discountCode;
    const state: DiscountState = {
      type,
      amount: changes.amount ?? current.amount.toNumber(),
      amountType: changes.amountType ?? current.amountType,
      discountCode,
      validFrom: changes.validFrom !== undefined ? changes.validFrom : timestampOrNull(current.validFrom),
      validUntil: changes.validUntil !== undefined ? changes.validUntil : timestampOrNull(current.validUntil),
      includedOfferIds: changes.includedOffers !== undefined ? unique(changes.includedOffers) : current.includedOfferIds,
      excludedOfferIds: changes.excludedOffers !== undefined ? unique(changes.excludedOffers) : current.excludedOfferIds,
      duration: changes.duration ?? current.duration,
      // A duration other than repeating drops the months it no longer uses.
      durationInMonths: changes.durationInMonths !== undefined ? changes.durationInMonths : (changes.duration ?? current.duration) === 'repeating' ? current.durationInMonths : null,
    };
    checkState(state);
    const sentOffers = [...(changes.includedOffers !== undefined ? state.includedOfferIds : []), ...(changes.excludedOffers !== undefined ? state.excludedOfferIds : [])];
    await checkOffersExist(tx, scope, sentOffers);
    if (type === 'code') {
      discountCode ??= await freeCode(tx, scope);
      if (discountCode !== current.discountCode && (await codeTaken(tx, scope, discountCode, current.id))) throw duplicateCode(discountCode);
    }
    const discount = await tx.discount.update({ ...query, where: { id: current.id }, data: { ...data, discountCode, durationInMonths: state.durationInMonths } });
    await recordEvent(tx, scope, 'discount_updated', discountEventData(discount));
    return discount;
  });
}

export async function archiveDiscount(prisma: PrismaClient, scope: Scope, discountId: string) {
  await prisma.$transaction(async (tx) => {
    await claimArchive('Discount', (now) => tx.discount.updateMany({ where: { id: discountId, ...inScope(scope), archivedAt: null }, data: { archivedAt: now } }));
    await recordEvent(tx, scope, 'discount_archived', discountEventData(await tx.discount.findUniqueOrThrow({ where: { id: discountId } })));
  });
  return { success: true };
}
