// Text helpers of the hosted checkout page: escaping, money, the test cards' list.
import { currencyDecimals } from '../reference/currencies.js';

/** The sandbox's test cards shown on a test-mode page (README, "Payments: sandbox processor"). */
export const TEST_CARDS: readonly { number: string; outcome: string }[] = [
  { number: '4242424242424242', outcome: 'succeeds' },
  { number: '4000000000000002', outcome: 'is declined' },
  { number: '4000000000009995', outcome: 'is declined (insufficient funds)' },
  { number: '4000002760003184', outcome: 'needs 3-D Secure: the page asks you to authenticate or fail it' },
];

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text for HTML content and quoted attribute values. */
export const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

/** JSON for a `<script type="application/json">` block: nothing in it can close the element or start a comment. */
export const scriptJson = (value: unknown) =>
  JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** Minor units as the currency writes them, with the currency's own number of decimals (JPY 0, BHD 3). */
export function formatMoney(minor: number, currency: string): string {
  const decimals = currencyDecimals(currency) ?? 2;
  const digits = String(Math.abs(Math.trunc(minor))).padStart(decimals + 1, '0');
  const amount = decimals > 0 ? `${digits.slice(0, -decimals)}.${digits.slice(-decimals)}` : digits;
  let formatted: string;
  try {
    // A decimal string keeps exact digits (no binary fractions).
    const format = new Intl.NumberFormat('en', { style: 'currency', currency, minimumFractionDigits: decimals, maximumFractionDigits: decimals });
    formatted = format.format(amount as unknown as number);
  } catch {
    formatted = `${amount} ${currency}`;
  }
  return minor < 0 ? `\u2212${formatted}` : formatted;
}

export const plural = (count: number, unit: string) => (count === 1 ? unit : `${count} ${unit}s`);
