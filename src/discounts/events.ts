// The events the discounts domain records (webhooks subscribe to them by type).
export const eventTypes = ['discount_created', 'discount_updated', 'discount_archived'] as const;
