// Billing periods and the dunning schedule: pure functions of times in milliseconds, shared by the
// subscription workflow (deterministic, bundled for the sandbox: no imports) and its activities.

export type Interval = 'day' | 'week' | 'month' | 'year';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The end of a period of `count` intervals that starts at `startMs`. Months and years keep the
 * billing day (`anchorDay`, the day of month the subscription started) and fall back to the last
 * day of a shorter month: Jan 31, Feb 28, Mar 31, as Stripe bills, with no drift after February.
 */
export function addInterval(startMs: number, interval: Interval, count: number, anchorDay?: number): number {
  if (interval === 'day') return startMs + count * DAY_MS;
  if (interval === 'week') return startMs + count * 7 * DAY_MS;
  const start = new Date(startMs);
  const months = interval === 'month' ? count : 12 * count;
  const monthIndex = start.getUTCMonth() + months;
  const year = start.getUTCFullYear() + Math.floor(monthIndex / 12);
  const month = ((monthIndex % 12) + 12) % 12;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  const day = Math.min(anchorDay ?? start.getUTCDate(), lastDay);
  return Date.UTC(year, month, day, start.getUTCHours(), start.getUTCMinutes(), start.getUTCSeconds(), start.getUTCMilliseconds());
}

/**
 * Dunning: after a renewal's first charge fails, it is retried this many days after the renewal
 * date (4 retries over 3 weeks, as Polar; Stripe's Smart Retries default is 8 in 2 weeks). When the
 * last one fails, the subscription is `unpaid`.
 */
export const RETRY_DAYS: readonly number[] = [3, 7, 14, 21];

/** When retry `attempt` (1 for the first retry) of a renewal due at `dueMs` runs; null after the last. */
export function retryAt(dueMs: number, attempt: number): number | null {
  const days = RETRY_DAYS[attempt - 1];
  return days === undefined ? null : dueMs + days * DAY_MS;
}

/**
 * Declines that retrying the same card cannot fix (Stripe's "do not try again" codes): the renewal
 * skips the remaining retries and the subscription is `unpaid` at once.
 */
export const HARD_DECLINES: ReadonlySet<string> = new Set([
  'stolen_card',
  'lost_card',
  'pickup_card',
  'restricted_card',
  'fraudulent',
  'expired_card',
  'incorrect_number',
  'invalid_account',
  'card_not_supported',
  'currency_not_supported',
  'do_not_honor',
  'do_not_try_again',
  'revocation_of_authorization',
  'payment_method_not_found',
]);
