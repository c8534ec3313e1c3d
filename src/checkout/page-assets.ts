// The hosted checkout page's stylesheet and script, and the headers that allow exactly them.
// Both are constant text: the Content-Security-Policy names them by their SHA-256 hash, so no
// per-response nonce is needed, and nothing else (an injected <script>, an inline handler, a
// style attribute, a request to another origin) can run or load. The page's data reaches the
// script through a JSON data block (`<script type="application/json">`), which is never executed.
import { createHash } from 'node:crypto';

import type { ProcessorName } from '../payments/index.js';
import { PAGE_SCRIPT } from './page-script.js';

export const PAGE_CSS = `
*, *::before, *::after { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1b1b1b; background: #f4f5f7; }
main { max-width: 40rem; margin: 0 auto; padding: 1.5rem 1rem 3rem; }
.card { background: #fff; border: 1px solid #dde0e4; border-radius: 8px; padding: 1rem 1.25rem; margin: 0 0 1rem; }
h1 { font-size: 1.5rem; margin: 0 0 .25rem; overflow-wrap: anywhere; }
h2 { font-size: 1.05rem; margin: 0 0 .75rem; }
.merchant { color: #5a6270; margin: 0 0 .25rem; font-size: .9rem; overflow-wrap: anywhere; }
.test-banner { background: #fff4ce; border: 1px solid #e0b400; color: #4a3b00; border-radius: 8px; padding: .75rem 1rem; margin: 0 0 1rem; }
.test-banner strong { display: block; font-size: 1rem; }
.test-banner ul { margin: .25rem 0 0; padding-left: 1.25rem; }
code { font: 13px/1.4 ui-monospace, monospace; }
ul.offers { list-style: none; margin: 0; padding: 0; }
ul.offers li { display: flex; justify-content: space-between; gap: 1rem; padding: .35rem 0; border-bottom: 1px solid #eef0f2; }
ul.offers li:last-child { border-bottom: 0; }
.offer-name { overflow-wrap: anywhere; }
.offer-note { display: block; color: #5a6270; font-size: .85rem; }
.price { white-space: nowrap; font-variant-numeric: tabular-nums; }
label { display: block; font-weight: 500; margin: .6rem 0 .2rem; }
.hint { font-weight: 400; color: #5a6270; font-size: .85rem; }
input, select { width: 100%; font: inherit; padding: .45rem .55rem; border: 1px solid #b9bfc7; border-radius: 6px; background: #fff; }
input:focus, select:focus { outline: 2px solid #3d6fd8; outline-offset: 1px; }
.row { display: flex; gap: .75rem; }
.row > div { flex: 1; min-width: 0; }
fieldset { border: 0; padding: 0; margin: 0; }
legend { font-weight: 600; padding: 0; margin: 0 0 .25rem; }
.methods label { display: inline-flex; align-items: center; gap: .35rem; margin-right: 1rem; font-weight: 400; }
.methods input { width: auto; }
details summary { cursor: pointer; }
table.summary { width: 100%; border-collapse: collapse; font-variant-numeric: tabular-nums; }
table.summary th, table.summary td { padding: .3rem 0; text-align: left; vertical-align: top; font-weight: 400; }
table.summary td.amount, table.summary th.amount { text-align: right; white-space: nowrap; padding-left: 1rem; }
table.summary tr.total th, table.summary tr.total td { border-top: 1px solid #dde0e4; font-weight: 700; font-size: 1.05rem; }
.muted { color: #5a6270; }
.notice { margin: .5rem 0 0; padding: .5rem .75rem; border-radius: 6px; }
.notice.warn { background: #fff4ce; color: #4a3b00; }
.notice.error { background: #fde7e9; color: #7a1020; }
.notice.success { background: #e3f5e8; color: #0d4a1f; }
.notice.pending { background: #e6effc; color: #12336b; }
button.pay { width: 100%; margin-top: 1rem; padding: .75rem; font: inherit; font-weight: 600; font-size: 1.05rem; color: #fff; background: #2450b2; border: 0; border-radius: 6px; cursor: pointer; }
button.pay:disabled { background: #8c9bb8; cursor: default; }
[hidden] { display: none !important; }
`;

/**
 * The page's behaviour. Plain browser JavaScript (no build step, nothing loaded from elsewhere);
 * it only ever writes text (textContent), never HTML. It reads the page's data from the JSON
 * block #checkout-data, asks POST /checkout/{id}/quote for the summary whenever an input that
 * changes it changes, and sends POST /checkout/{id}/orders with an Idempotency-Key.
 */

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/**
 * The headers of every hosted page, given its one script (docs/decisions.md, "Checkout page"):
 * - CSP: nothing but the script and stylesheet above (by hash), requests to this origin only,
 *   no plugins, no <base>, no form posting anywhere (the script sends the JSON itself); with
 *   Stripe, Stripe.js too: its script, its frames (the Payment Element) and its API;
 * - framing: allowed on https pages (a checkout element is embeddable) and on local development
 *   origins, never on plain-http sites; X-Frame-Options cannot say that, so it is not sent;
 * - not cached (the page shows live prices and stock), no Referer (the URL carries the discount code).
 */
export const hostedPageHeaders = (script: string, processor: ProcessorName): Readonly<Record<string, string>> => {
  const stripe = processor === 'stripe';
  return Object.freeze({
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': [
      "default-src 'none'",
      `script-src ${sha256(script)}${stripe ? ' https://js.stripe.com' : ''}`,
      `style-src ${sha256(PAGE_CSS)}`,
      `connect-src 'self'${stripe ? ' https://api.stripe.com' : ''}`,
      ...(stripe ? ['frame-src https://js.stripe.com https://hooks.stripe.com'] : []),
      "img-src 'self' data:",
      "form-action 'none'",
      "base-uri 'none'",
      "frame-ancestors 'self' https: http://localhost:* http://127.0.0.1:*",
    ].join('; '),
    'cache-control': 'no-store',
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
  });
};

/** The checkout page's headers, per processor; another hosted page (the payment-method page) takes hostedPageHeaders of its own script. */
export const CHECKOUT_PAGE_HEADERS: Readonly<Record<ProcessorName, Readonly<Record<string, string>>>> = {
  sandbox: hostedPageHeaders(PAGE_SCRIPT, 'sandbox'),
  stripe: hostedPageHeaders(PAGE_SCRIPT, 'stripe'),
};
