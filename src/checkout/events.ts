// The events the checkout domain records (webhooks subscribe to them by type).
export const eventTypes = ['checkout_element_created'] as const;
