// The event types a webhook can subscribe to. The spec names the payment and subscription ones;
// the catalogue ones are what this service emits today. New types may be added at any time
// (spec, Versioning §2), so receivers must ignore types they do not know.
export const EVENT_TYPES = [
  'payment_success',
  'payment_refunded',
  'payment_failed',
  'subscription_created',
  'subscription_cancelled',
  'subscription_updated',
  'product_created',
  'product_updated',
  'product_archived',
  'offer_created',
  'offer_updated',
  'offer_archived',
  'discount_created',
  'discount_updated',
  'discount_archived',
  'user_created',
  'user_archived',
  'checkout_element_created',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

const known: ReadonlySet<string> = new Set(EVENT_TYPES);

export const isEventType = (value: string): value is EventType => known.has(value);
