import type { CheckoutElementStatus, Prisma, PrismaClient } from '../generated/prisma/client.js';
import { ValidationFailed } from '../core/errors.js';
import { recordEvent } from '../events/event-service.js';
import { inScope, type Scope } from '../core/scope.js';
import { archivedWhere, offsetPage, type OffsetListArgs } from '../core/list.js';
import { checkoutElementEventData, withOfferReferences } from './events.js';

export const MAX_OFFERS = 25;

export interface CreateCheckoutElementInput {
  offersIds: string[];
  name?: string | null;
  status?: CheckoutElementStatus | null;
  customFields?: unknown;
}

type Query = { select?: Prisma.CheckoutElementSelect; include?: Prisma.CheckoutElementInclude };

function checkInput(input: CreateCheckoutElementInput) {
  // Custom fields are not supported: sending the key at all, even as null, is refused.
  if ('customFields' in input) throw new ValidationFailed('customFields is not supported on checkout elements');
  const { offersIds } = input;
  if (offersIds.length < 1 || offersIds.length > MAX_OFFERS) throw new ValidationFailed(`offersIds must hold 1 to ${MAX_OFFERS} offer ids`);
  const repeated = offersIds.filter((id, index) => offersIds.indexOf(id) !== index);
  if (repeated.length) throw new ValidationFailed(`offersIds repeats ${[...new Set(repeated)].join(', ')}`);
  // The maximum length is checked for every input in one place (graphql/input-limits.ts).
  if (input.name !== undefined && input.name !== null && input.name.trim() === '') throw new ValidationFailed('name must not be empty');
  if (input.status === null) throw new ValidationFailed('status cannot be null');
}

/**
 * Allowed configurations: one one-time offer, several one-time offers in one currency (a cart),
 * or one subscription offer on its own. A free offer is one-time unless it recurs.
 */
function checkConfiguration(offers: { id: string; currency: string; recurringInterval: string | null }[]) {
  const currencies = new Set(offers.map((o) => o.currency));
  if (currencies.size > 1) throw new ValidationFailed(`All offers of a checkout element must share one currency (got ${[...currencies].join(', ')})`);
  const recurring = offers.filter((o) => o.recurringInterval !== null);
  if (recurring.length > 0 && offers.length > 1) {
    throw new ValidationFailed('A subscription offer cannot be combined with other offers in a checkout element');
  }
  return recurring.length === 1;
}

export async function createCheckoutElement(prisma: PrismaClient, scope: Scope, input: CreateCheckoutElementInput, query: Query) {
  checkInput(input);
  return prisma.$transaction(async (tx) => {
    const offers = await tx.offer.findMany({
      where: { id: { in: input.offersIds }, ...inScope(scope), archivedAt: null },
      select: { id: true, currency: true, recurringInterval: true },
    });
    const found = new Set(offers.map((o) => o.id));
    const missing = input.offersIds.filter((id) => !found.has(id));
    if (missing.length) throw new ValidationFailed(`offersIds: no live offer ${missing.join(', ')} in this workspace`);
    const subscriptionOffer = checkConfiguration(offers);
    const element = await tx.checkoutElement.create({
      ...query,
      data: {
        ...inScope(scope),
        name: input.name?.trim() ?? null,
        status: input.status ?? 'ACTIVE',
        subscriptionOffer,
        offers: { create: input.offersIds.map((offerId, position) => ({ offerId, position })) },
      },
    });
    const created = await tx.checkoutElement.findUniqueOrThrow({ where: { id: element.id }, include: withOfferReferences });
    await recordEvent(tx, scope, 'checkout_element_created', checkoutElementEventData(created));
    return element;
  });
}

/** Fixed order (newest first); the count is always returned. */
export async function listCheckoutElements(prisma: PrismaClient, scope: Scope, args: Pick<OffsetListArgs, 'skip' | 'take' | 'archived' | 'withArchived'>, query: Query) {
  const { skip, take } = offsetPage(args, 10);
  const where = { ...inScope(scope), ...archivedWhere(args) };
  const [checkoutElements, count] = await Promise.all([
    prisma.checkoutElement.findMany({ ...query, where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], skip, take }),
    prisma.checkoutElement.count({ where }),
  ]);
  return { checkoutElements, count };
}
