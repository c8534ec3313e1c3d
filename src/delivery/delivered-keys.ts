// A sold license key as the buyer's side sees it (order details, the order's webhook payloads'
// `items`, the user's inventory). Keys show once the order was paid; a unit refunded (the last
// `refundedQuantity` units of the item) and every unit of an order refunded in full or cancelled
// after payment show their key as `revoked` (Gumroad: a full refund disables the key, a partial
// one only the units it gave back). Pure: the callers load the rows.
import type { LicenseKey, OrderItem, OrderStatus } from '../generated/prisma/client.js';
import type { DeliveredKey } from '../orders/index.js';
import { openKey } from './key-vault.js';

export type { DeliveredKey };

/** Statuses in which an order's items are the buyer's (partially refunded ones still are, less their refunded units). */
export const DELIVERING_STATUSES: readonly OrderStatus[] = ['PAID', 'PARTIALLY_REFUNDED'];

/** What decides a sold key's status: its order's state. */
export interface DeliveringOrder {
  status: OrderStatus;
  paidAt: Date | null;
}

type KeyRow = Pick<LicenseKey, 'id' | 'productId' | 'sealed' | 'unit'>;

/** The item's keys in unit order; none before the order is paid. */
export function deliveredKeys(order: DeliveringOrder, item: Pick<OrderItem, 'quantity' | 'refundedQuantity'> & { licenseKeys: KeyRow[] }): DeliveredKey[] {
  if (!order.paidAt) return [];
  const kept = DELIVERING_STATUSES.includes(order.status) ? item.quantity - item.refundedQuantity : 0;
  return [...item.licenseKeys]
    .sort((a, b) => (a.unit ?? 0) - (b.unit ?? 0))
    .map((row) => {
      const unit = row.unit ?? 0;
      return { object: 'license_key', id: row.id, key: openKey(row.productId, row.sealed), unit, status: unit < kept ? 'active' : 'revoked' };
    });
}

/** A read-only caller (public key only) sees a sold key's id and status, never its value. */
export const withoutValues = (keys: DeliveredKey[]) => keys.map((key) => ({ ...key, key: null }));
