// What delivery adds to other domains' GraphQL types, so that they need not know about stock: the
// key stock of an offer (OfferDetails.inventory) and what a user owns (Query.userInventory; its
// REST route stays under Users, src/users/routes.ts).
import { builder } from '../graphql/builder.js';
import { scopeOf } from '../graphql/context.js';
import { OfferDetails } from '../offers/index.js';
import { userInventory } from './inventory.js';
import { keyStock } from './license-keys.js';
import { InventoryItem } from './types.js';

const InventoryStatus = builder.enumType('InventoryStatus', { values: ['in_stock', 'out_of_stock'] as const });

const OfferInventory = builder.simpleObject('OfferInventory', {
  fields: (t) => ({
    total: t.int({ description: 'available + sold' }),
    available: t.int(),
    sold: t.int({ description: 'Keys sold to orders (an order whose payment ends unpaid gives them back)' }),
    revoked: t.int({ description: 'Unsold keys the merchant revoked (not in total)' }),
    status: t.field({ type: InventoryStatus }),
  }),
});

builder.prismaObjectField(OfferDetails, 'inventory', (t) =>
  t.field({
    type: OfferInventory,
    nullable: true,
    description: "License-key stock of the offer's product (for the offer's variant) for SoftwareKey and GiftCard products; null for other product types",
    select: { productId: true, variantId: true, product: { select: { type: true } } },
    resolve: (o, _args, ctx) => keyStock(ctx.prisma, o, o.product.type),
  }),
);

const UserInventory = builder.simpleObject('UserInventory', {
  fields: (t) => ({ inventory: t.field({ type: [InventoryItem] }), count: t.int(), pages: t.int() }),
});

builder.queryField('userInventory', (t) =>
  t.field({
    type: UserInventory,
    description: 'What the user owns: the items of their paid and partially refunded orders not refunded in full, newest first',
    args: {
      userId: t.arg({ type: 'UUID', required: true }),
      page: t.arg.int({ description: '1-based page number; default 1; below 1 is a 400' }),
      limit: t.arg({ type: 'PageSize', description: 'Page size; default 20, clamped to 1..100' }),
    },
    resolve: async (_root, { userId, ...page }, ctx) => userInventory(ctx.prisma, await scopeOf(ctx, 'read'), userId, page),
  }),
);
