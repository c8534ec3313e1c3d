// The orders domain's door: what other domains may use of it (docs/decisions.md "One door per
// domain"). Everything else in src/orders is private to it.

/** The checkout and a plan change create orders; the others find, list and read them by the orders' rules. */
export { createOrder, findOrder, listOrders, orderItemsWithCatalogue, type CatalogueItem, type NewOrderItem } from './service.js';
/** Payments, refunds and subscriptions record their events with the order as the order events show it, in their transaction. */
export { loadOrderForEvent } from './service.js';
/** A first payment ending unpaid gives back what the checkout reserved for its order. */
export { releaseOrderReservations } from './service.js';
/** Payment and subscription events carry the order, its items, its payment and its subscription as the orders show them. */
export { orderEventData, sampleOrderEvent, type OrderRow } from './events.js';
export { itemsValue, orderItemResource, sampleItems, type ItemRow } from './item-resource.js';
export { paymentResource, paymentRowInclude, type PaymentRow } from './payment-resource.js';
export { subscriptionResource } from './subscription-resource.js';
/** Renewals and refunds apply the order's fee rule and number their payments like the order's. */
export { FEE_RULE, feeRuleOf, paymentFee, type FeeRule } from './fee.js';
export { paymentNumber } from './numbers.js';
/** Payments and subscriptions list sales with the orders' filters, so every sale list reads the same arguments. */
export { createdRange, readSaleFilters, salePage, type SaleFilters, type SaleListArgs } from './filters.js';
export { amountRange, customFieldsWhere, termBuyers, termNumbers, type TermBuyers } from './list-where.js';
/** The other domains' GraphQL types link to orders and their items, and take the sale list arguments. */
export { CartItem, numberOf, Order, OrderDetails, OrderStatusEnum, saleFilterArgs, SubscriptionStatusEnum } from './types.js';
/** Reactions of other domains: an order cancelled, its reservations released, and the keys its items delivered. */
export { onOrderCancelled, onReservationsReleased, provideDeliveredKeys, type DeliveredKey, type DeliveredKeysReader } from './hooks.js';
