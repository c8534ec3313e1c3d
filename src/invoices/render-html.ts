// A document as a standalone HTML page (the buyer's receipt page behind its signed link): rendered
// once when it is issued and stored, so the page never changes after.
import type { DocumentContent, DocumentLine } from './content.js';
import { escapeHtml, formatMoney } from './domain-calls.js';
import { documentLabels, percent } from './labels.js';

const STYLE = `body{font-family:system-ui,sans-serif;color:#1a1a1a;max-width:860px;margin:2rem auto;padding:0 1rem}
h1{font-size:1.6rem;margin-bottom:.2rem}.test{background:#fff3cd;border:1px solid #e0b000;padding:.5rem 1rem;border-radius:4px}
.parties{display:flex;gap:3rem;margin:1.5rem 0}.parties div{flex:1}table{width:100%;border-collapse:collapse;margin:1rem 0}
th,td{text-align:left;padding:.4rem;border-bottom:1px solid #ddd}td.n,th.n{text-align:right}.totals td{border:none}
.totals tr.total td{font-weight:bold;border-top:2px solid #1a1a1a}.notes p{margin:.3rem 0}`;

const party = (title: string, name: string | null, lines: readonly (string | null)[]) =>
  `<div><h2>${escapeHtml(title)}</h2>${[name, ...lines].filter((l): l is string => Boolean(l)).map((l) => `<div>${escapeHtml(l)}</div>`).join('')}</div>`;

function lineRow(l: DocumentLine, currency: string): string {
  const money = (minor: number) => escapeHtml(formatMoney(minor, currency));
  return `<tr><td>${escapeHtml(l.description)}</td><td class="n">${l.quantity}</td><td class="n">${money(l.unitPrice)}</td><td class="n">${money(l.discount)}</td><td class="n">${percent(l.taxRate)}</td><td class="n">${money(l.tax)}</td><td class="n">${money(l.amount)}</td></tr>`;
}

export function renderHtml(content: DocumentContent): string {
  const labels = documentLabels(content);
  const money = (minor: number) => escapeHtml(formatMoney(minor, content.currency));
  const { seller, buyer } = content;
  const taxRows = content.taxes.map((t) => `<tr><td colspan="6" class="n">${escapeHtml(labels.taxAt(t.rate))} on ${money(t.amount)}</td><td class="n">${money(t.tax)}</td></tr>`).join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(`${labels.title} ${content.number}`)}</title><style>${STYLE}</style></head>
<body><main>
${content.livemode ? '' : `<p class="test" role="note">${escapeHtml(labels.testMode)}</p>`}
<h1>${escapeHtml(labels.title)} <span id="number">${escapeHtml(content.number)}</span></h1>
<dl>${labels.facts.map(([term, value]) => `<dt>${escapeHtml(term)}</dt><dd>${escapeHtml(value)}</dd>`).join('')}</dl>
<section class="parties">
${party('Seller', seller.legalName, [...seller.address, seller.taxId ? `VAT / tax id: ${seller.taxId}` : null])}
${party('Billed to', buyer.name, [buyer.email, ...buyer.address, buyer.country, buyer.taxId ? `VAT / tax id: ${buyer.taxId}` : null])}
</section>
<table><thead><tr><th>Description</th><th class="n">Qty</th><th class="n">Unit price</th><th class="n">Discount</th><th class="n">Tax rate</th><th class="n">Tax</th><th class="n">Amount</th></tr></thead>
<tbody>${content.lines.map((l) => lineRow(l, content.currency)).join('')}</tbody>
<tbody class="totals"><tr><td colspan="6" class="n">Subtotal</td><td class="n">${money(content.subtotal)}</td></tr>${taxRows}
<tr class="total"><td colspan="6" class="n">${escapeHtml(labels.totalLabel)}</td><td class="n" id="total">${money(content.total)}</td></tr></tbody></table>
<section class="notes">${content.notes.map((n) => `<p>${escapeHtml(n)}</p>`).join('')}</section>
</main></body></html>
`;
}
