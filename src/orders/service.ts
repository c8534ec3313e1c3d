import type { Prisma } from '../generated/prisma/client.js';
import { inScope, type Scope } from '../core/scope.js';

/** What a buyer owns: the items of their paid orders in this scope. */
export const ownedItemsWhere = (scope: Scope, userId: string): Prisma.OrderItemWhereInput => ({ order: { userId, ...inScope(scope), status: 'PAID' } });
