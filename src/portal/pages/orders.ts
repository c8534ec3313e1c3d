// The buyer's orders: the list, one order (items, amounts, tax, status, refunds, delivery) and
// its downloads page. License keys stay hidden until the buyer asks for one (a plain GET, so the
// page works without script); a download button mints a URL through the delivery service.
import type { BuyerOrder } from '../buyer.js';
import { escapeHtml, formatMoney } from '../domain-calls.js';
import type { Buyer, PortalWorkspace } from '../sessions.js';
import { csrfField, portalPage, portalPath, type Frame, type PortalPage } from './layout.js';

export const DATE = new Intl.DateTimeFormat('en', { dateStyle: 'long', timeZone: 'UTC' });

const ORDER_STATUS: Record<string, [string, string]> = {
  PENDING: ['Awaiting payment', 'warn'],
  PAID: ['Paid', 'good'],
  FAILED: ['Payment failed', 'bad'],
  CANCELLED: ['Cancelled', ''],
  EXPIRED: ['Expired', ''],
  REFUNDED: ['Refunded', ''],
  PARTIALLY_REFUNDED: ['Partially refunded', 'warn'],
};

export const badge = ([text, tone]: [string, string], id?: string) => `<span class="status${tone ? ` ${tone}` : ''}"${id ? ` id="${id}"` : ''}>${escapeHtml(text)}</span>`;

const orderStatus = (status: string) => badge(ORDER_STATUS[status] ?? [status, '']);

interface ListedOrder {
  number: string;
  status: string;
  value: number;
  currency: string;
  createdAt: Date;
  names: string[];
}

export function ordersPage(frame: Frame & { buyer: Buyer }, list: { orders: ListedOrder[]; hasMore: boolean; page: number }): PortalPage {
  const { workspace } = frame;
  const rows = list.orders
    .map((order) => `<tr>
<td data-label="Order"><a href="${portalPath(workspace.id, `orders/${order.number}`)}">${escapeHtml(order.number)}</a></td>
<td data-label="Date">${DATE.format(order.createdAt)}</td>
<td data-label="Items">${escapeHtml(order.names.join(', '))}</td>
<td data-label="Status">${orderStatus(order.status)}</td>
<td data-label="Total" class="amount">${escapeHtml(formatMoney(order.value, order.currency))}</td>
</tr>`)
    .join('\n');
  const pages = [
    list.page > 1 ? `<a href="?page=${list.page - 1}" rel="prev">Newer orders</a>` : '',
    list.hasMore ? `<a href="?page=${list.page + 1}" rel="next">Older orders</a>` : '',
  ].filter(Boolean);
  const body = list.orders.length
    ? `<table class="responsive" id="orders"><caption class="skip">Your orders, newest first</caption>
<thead><tr><th scope="col">Order</th><th scope="col">Date</th><th scope="col">Items</th><th scope="col">Status</th><th scope="col" class="amount">Total</th></tr></thead>
<tbody>
${rows}
</tbody></table>
${pages.length ? `<nav class="actions" aria-label="Pages">${pages.join('\n')}</nav>` : ''}`
    : '<p id="no-orders">No orders yet.</p>';
  return portalPage(200, { ...frame, title: 'Your orders', current: 'orders' }, `<h1>Your orders</h1>\n<div class="card">\n${body}\n</div>`);
}

type Item = BuyerOrder['items'][number];

function itemsTable(order: BuyerOrder['order'], items: Item[]): string {
  const money = (amount: number) => escapeHtml(formatMoney(amount, order.currency));
  const rows = items
    .map((item) => `<tr>
<th scope="row" data-label="Item">${escapeHtml(item.name)}${item.refundedQuantity ? ` <span class="muted">(${item.refundedQuantity} refunded)</span>` : ''}</th>
<td data-label="Quantity">${item.quantity}</td>
<td data-label="Price" class="amount">${money(item.unitPrice)}</td>
<td data-label="Discount" class="amount">${item.discount ? `\u2212${money(item.discount)}` : '\u2014'}</td>
<td data-label="Tax" class="amount">${money(item.tax)}${item.taxInclusive ? ' incl.' : ''}</td>
<td data-label="Total" class="amount">${money(item.total)}</td>
</tr>`)
    .join('\n');
  return `<table class="responsive" id="items"><caption class="skip">Items</caption>
<thead><tr><th scope="col">Item</th><th scope="col">Quantity</th><th scope="col" class="amount">Price</th><th scope="col" class="amount">Discount</th><th scope="col" class="amount">Tax</th><th scope="col" class="amount">Total</th></tr></thead>
<tbody>
${rows}
</tbody>
<tbody>
<tr><th scope="row" colspan="5">Tax${order.taxInclusive ? ' (included in the prices)' : ''}</th><td class="amount" id="order-tax" data-label="Tax">${money(order.tax)}</td></tr>
<tr class="total"><th scope="row" colspan="5">Total</th><td class="amount" id="order-total" data-label="Total">${money(order.value)}</td></tr>
</tbody></table>`;
}

const REFUND_STATUS: Record<string, [string, string]> = {
  pending: ['Pending', 'warn'],
  succeeded: ['Refunded', 'good'],
  partially_failed: ['Partly refunded', 'warn'],
  failed: ['Failed', 'bad'],
  canceled: ['Cancelled', ''],
};

function refundsSection(order: BuyerOrder['order'], refunds: BuyerOrder['refunds']): string {
  if (!refunds.length) return '';
  const rows = refunds
    .map((refund) => `<tr><td data-label="Date">${DATE.format(refund.createdAt)}</td><td data-label="Status">${badge(REFUND_STATUS[refund.status] ?? [refund.status, ''])}</td><td data-label="Amount" class="amount">${escapeHtml(formatMoney(refund.amount, order.currency))}</td></tr>`)
    .join('\n');
  return `<section class="card" aria-labelledby="refunds-heading" id="refunds">
<h2 id="refunds-heading">Refunds</h2>
<table class="responsive"><thead><tr><th scope="col">Date</th><th scope="col">Status</th><th scope="col" class="amount">Amount</th></tr></thead>
<tbody>
${rows}
</tbody></table>
</section>`;
}

/** The item's keys, masked unless the buyer asked for that one (`shown`). */
function keysList(workspace: PortalWorkspace, order: BuyerOrder['order'], item: Item, shown: string | null): string {
  return item.licenseKeys
    .map((key) => {
      const label = `License key${item.licenseKeys.length > 1 ? ` ${key.unit + 1}` : ''}`;
      const status = key.status === 'revoked' ? ' <span class="status bad">Revoked</span>' : '';
      const value =
        key.id === shown
          ? `<code class="key" id="key-${key.id}">${escapeHtml(key.key)}</code>`
          : `<form method="get" action="${portalPath(workspace.id, `orders/${order.number}`)}#key-${key.id}"><input type="hidden" name="key" value="${key.id}"><button type="submit" id="show-key-${key.id}" aria-label="Show key: ${escapeHtml(label.toLowerCase())} of ${escapeHtml(item.name)}">Show key</button></form>`;
      return `<li><div class="row-head"><span>${label}${status}</span>${value}</div></li>`;
    })
    .join('\n');
}

/** Per item: its download button, its license keys, or why it delivers nothing now. */
function deliverySection(workspace: PortalWorkspace, buyer: Buyer, details: BuyerOrder, shown: string | null): string {
  const { order, items } = details;
  const entries = items
    .filter((item) => item.download || item.licenseKeys.length)
    .map((item) => {
      const download = item.download
        ? `<form method="post" action="${portalPath(workspace.id, `orders/${order.number}/items/${item.id}/download`)}">${csrfField(buyer.csrf)}<button type="submit" class="primary" id="download-${item.id}" aria-label="Download ${escapeHtml(item.download.fileName)}">Download</button></form>`
        : '';
      return `<li><div class="row-head"><strong>${escapeHtml(item.name)}</strong>${download}</div>
${item.download ? `<p class="muted">${escapeHtml(item.download.fileName)}</p>` : ''}
${item.licenseKeys.length ? `<ul class="plain">\n${keysList(workspace, order, item, shown)}\n</ul>` : ''}</li>`;
    });
  const body = entries.length ? `<ul class="plain">\n${entries.join('\n')}\n</ul>` : `<p class="muted" id="nothing-to-deliver">${order.paidAt ? 'Nothing to download in this order.' : 'Downloads and keys appear here once the order is paid.'}</p>`;
  return `<section class="card" aria-labelledby="delivery-heading" id="delivery">
<h2 id="delivery-heading">Downloads and keys</h2>
${body}
</section>`;
}

/**
 * One order. Its sections in order: summary, items with amounts and tax, refunds, delivery.
 * Invoices and credit notes, once the service issues them, are one more section here.
 */
export function orderPage(frame: Frame & { buyer: Buyer }, details: BuyerOrder, shownKey: string | null): PortalPage {
  const { workspace, buyer } = frame;
  const { order } = details;
  const summary = `<div class="card">
<dl class="facts">
<dt>Date</dt><dd>${DATE.format(order.createdAt)}</dd>
<dt>Status</dt><dd>${orderStatus(order.status)}</dd>
<dt>Total</dt><dd>${escapeHtml(formatMoney(order.value, order.currency))}</dd>
${order.subscriptionId ? `<dt>Subscription</dt><dd><a href="${escapeHtml(workspace.customSubscriptionManagementUrl ?? portalPath(workspace.id, `subscriptions/${order.number}`))}">Manage the subscription</a></dd>` : ''}
</dl>
</div>`;
  const body = [
    `<h1>Order <span id="order-number">${escapeHtml(order.number)}</span></h1>`,
    summary,
    `<section class="card" aria-labelledby="items-heading"><h2 id="items-heading">Items</h2>\n${itemsTable(order, details.items)}\n</section>`,
    refundsSection(order, details.refunds),
    deliverySection(workspace, buyer, details, shownKey),
  ].join('\n');
  return portalPage(200, { ...frame, title: `Order ${order.number}`, current: 'orders' }, body);
}

/** The order's downloads and keys alone (the orders-downloads link). */
export function downloadsPage(frame: Frame & { buyer: Buyer }, details: BuyerOrder): PortalPage {
  const { workspace, buyer } = frame;
  const { order } = details;
  return portalPage(
    200,
    { ...frame, title: `Downloads of order ${order.number}`, current: 'orders' },
    `<h1>Downloads of order ${escapeHtml(order.number)}</h1>
${deliverySection(workspace, buyer, details, null)}
<p><a href="${portalPath(workspace.id, `orders/${order.number}`)}">The whole order</a></p>`,
  );
}
