// The webhooks domain records no events of its own.
export const eventTypes = [] as const;
