// The events the products domain records (webhooks subscribe to them by type).
export const eventTypes = ['product_created', 'product_updated', 'product_archived'] as const;
