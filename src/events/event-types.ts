// What a domain declares about its events: each type it records, with a sample builder. The sample
// goes through the same payload builder as the real event, so a test event (sendTestEvent) has the
// real event's shape by construction. New types may be added at any time (spec, Versioning §2), so
// receivers must ignore types they do not know.

/** Made-up parts a sample may use: the time, the order items and the buyer of the test event. */
export interface SampleContext {
  now: Date;
  /** Order items, each with an id (from the caller's `items` hint, or one made-up item). */
  items(): Array<Record<string, unknown> & { id: string }>;
  /** The workspace's own user when the caller named one, otherwise a made-up user (users/events.ts). */
  user(): Promise<Record<string, unknown>>;
}

export type EventSample = (sample: SampleContext) => object | Promise<object>;

/** A domain's event types, each with its sample. */
export type EventDefinitions = Readonly<Record<string, EventSample>>;
