// The events the offers domain records (webhooks subscribe to them by type).
export const eventTypes = ['offer_created', 'offer_updated', 'offer_archived'] as const;
