// The events the users domain records (webhooks subscribe to them by type).
export const eventTypes = ['user_created', 'user_archived'] as const;
