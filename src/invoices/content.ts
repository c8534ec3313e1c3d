// What an invoice or a credit note says, as pure functions of what was sold: the lines with their
// tax rates, the totals per rate, and a credit note's lines as its share of the invoice it
// corrects. Frozen as the document's `content` when issued (./issue.ts), never computed again.

/** One line of a document. Money in minor units of the document's currency. */
export interface DocumentLine {
  /** The cart item it bills (null for a renewal's or a plan change's period line). */
  itemId: string | null;
  description: string;
  quantity: number;
  /** As charged: with the tax in it when the document's pricesIncludeTax. */
  unitPrice: number;
  discount: number;
  /** 0.19 for 19%. */
  taxRate: number;
  tax: number;
  /** The line without tax. */
  amount: number;
  /** amount + tax: what the buyer paid for the line. */
  total: number;
}

export interface TaxTotal {
  rate: number;
  /** The lines' amount without tax at this rate. */
  amount: number;
  tax: number;
}

export interface Party {
  name: string | null;
  email: string | null;
  /** Lines as printed. */
  address: string[];
  country: string | null;
  taxId: string | null;
}

export interface DocumentContent {
  kind: 'invoice' | 'credit_note';
  number: string;
  livemode: boolean;
  /** ISO 8601. */
  issuedAt: string;
  /** The day the goods or services were supplied (the payment's), YYYY-MM-DD. */
  supplyDate: string;
  currency: string;
  pricesIncludeTax: boolean;
  seller: { legalName: string; address: string[]; taxId: string | null };
  buyer: Party;
  lines: DocumentLine[];
  taxes: TaxTotal[];
  /** Without tax. */
  subtotal: number;
  tax: number;
  total: number;
  reverseCharge: boolean;
  /** Printed under the totals: the reverse-charge statement, the test-mode mark. */
  notes: string[];
  payment: { id: string; number: string; method: string | null; cardBrand: string | null; cardLast4: string | null };
  order: { id: string; number: string };
  /** A credit note's refund and the invoice it corrects. */
  refundId: string | null;
  corrects: { id: string; number: string } | null;
}

export const REVERSE_CHARGE_NOTE = 'Reverse charge: VAT to be accounted for by the recipient (Article 196 of Council Directive 2006/112/EC).';
export const TEST_MODE_NOTE = 'Test mode: this document was issued for a test payment and is not a valid tax document.';

/** Candidate steps for a published rate, coarsest first (19%, 15.5%, 7.25%, 9.975%). */
const RATE_STEPS = [0.01, 0.005, 0.001, 0.0005, 0.0001, 0.00001];

/**
 * The rate a line was taxed at, from its amounts (orders keep the tax, not the rate): the coarsest
 * published-looking rate that rounds to the line's tax, so 190 on 999 reads 19%, not 19.02%.
 * `base` is what the tax was computed on (the net, or the gross when the price included it).
 */
export function rateOf(tax: number, net: number, inclusive: boolean): number {
  if (tax === 0 || net <= 0) return 0;
  const exact = tax / net;
  const taxOf = (rate: number) => (inclusive ? ((net + tax) * rate) / (1 + rate) : net * rate);
  for (const step of RATE_STEPS) {
    const candidate = Math.round(exact / step) * step;
    for (const rate of [candidate, candidate - step, candidate + step]) {
      if (rate > 0 && Math.abs(taxOf(rate) - tax) <= 0.5 + 1e-9) return Number(rate.toFixed(6));
    }
  }
  return Number(exact.toFixed(6));
}

/** A line from what was charged for it; the rate read from its amounts. */
export function line(input: { itemId: string | null; description: string; quantity: number; unitPrice: number; discount: number; tax: number; taxInclusive: boolean }): DocumentLine {
  const gross = input.unitPrice * input.quantity - input.discount;
  const amount = input.taxInclusive ? gross - input.tax : gross;
  return { ...input, taxRate: rateOf(input.tax, amount, input.taxInclusive), amount, total: amount + input.tax };
}

/** The totals per rate (highest rate first) and of the document. */
export function totalsOf(lines: readonly DocumentLine[]): Pick<DocumentContent, 'taxes' | 'subtotal' | 'tax' | 'total'> {
  const byRate = new Map<number, TaxTotal>();
  for (const l of lines) {
    const entry = byRate.get(l.taxRate) ?? { rate: l.taxRate, amount: 0, tax: 0 };
    entry.amount += l.amount;
    entry.tax += l.tax;
    byRate.set(l.taxRate, entry);
  }
  const subtotal = lines.reduce((sum, l) => sum + l.amount, 0);
  const tax = lines.reduce((sum, l) => sum + l.tax, 0);
  return { taxes: [...byRate.values()].sort((a, b) => b.rate - a.rate), subtotal, tax, total: subtotal + tax };
}

/** `amount` split over `weights` in proportion, whole units, summing to it exactly (largest remainders first). */
export function allocate(amount: number, weights: readonly number[]): number[] {
  const sum = weights.reduce((s, w) => s + w, 0);
  if (sum <= 0) return weights.map((_, i) => (i === 0 ? amount : 0));
  const exact = weights.map((w) => (amount * w) / sum);
  const shares = exact.map(Math.floor);
  const order = exact.map((e, i) => ({ i, rest: e - Math.floor(e) })).sort((a, b) => b.rest - a.rest || a.i - b.i);
  for (let k = 0, left = amount - shares.reduce((s, x) => s + x, 0); left > 0; k++, left--) shares[order[k % order.length]!.i]! += 1;
  return shares;
}

/**
 * A credit note's lines: `amount` (what the refund gave back from the invoice's payment, tax
 * included) over the invoice's lines. A refund of cart items credits those items' lines, in
 * proportion to the units given back; any other refund credits every line in proportion to what
 * it cost. Each credited line keeps its rate; its tax is the same share of the line's tax, so
 * crediting a whole invoice gives back its lines exactly. The total is `amount`, to the unit.
 * `taxLeft`: the invoice's tax not yet credited, when this credit note credits the rest of it.
 */
export function creditLines(invoice: readonly DocumentLine[], amount: number, items: ReadonlyArray<{ id: string; quantity: number }>, pricesIncludeTax: boolean, taxLeft: number | null): DocumentLine[] {
  const lines = shareLines(invoice, amount, items, pricesIncludeTax);
  // The credit note that completes the invoice's correction takes the tax still left to credit,
  // so the credit notes' taxes add up to the invoice's whatever each share rounded.
  const off = taxLeft === null ? 0 : taxLeft - lines.reduce((sum, l) => sum + l.tax, 0);
  if (off === 0 || lines.length === 0) return lines;
  const [first, ...rest] = lines;
  return [{ ...first!, tax: first!.tax + off, amount: first!.amount - off }, ...rest];
}

function shareLines(invoice: readonly DocumentLine[], amount: number, items: ReadonlyArray<{ id: string; quantity: number }>, pricesIncludeTax: boolean): DocumentLine[] {
  const units = new Map(items.map((i) => [i.id, i.quantity]));
  const itemLines = invoice.filter((l) => l.itemId !== null && (units.get(l.itemId) ?? 0) > 0);
  const credited = itemLines.length > 0 ? itemLines : invoice;
  const quantityOf = (l: DocumentLine) => (itemLines.length > 0 ? Math.min(units.get(l.itemId!)!, l.quantity) : l.quantity);
  const shares = allocate(amount, credited.map((l) => (l.total * quantityOf(l)) / l.quantity));
  return credited.flatMap((l, i) => {
    const total = shares[i]!;
    if (total === 0 && credited.length > 1) return [];
    if (total === l.total) return [l];
    const tax = l.total === 0 ? 0 : Math.round((total * l.tax) / l.total);
    const quantity = quantityOf(l);
    // The unit price as the invoice states it (with or without its tax), rounded up: the discount takes the rounding.
    const charged = pricesIncludeTax ? total : total - tax;
    const unitPrice = Math.ceil(charged / quantity);
    const description = itemLines.length > 0 ? l.description : `Partial refund: ${l.description}`;
    return [{ itemId: l.itemId, description, quantity, unitPrice, discount: quantity * unitPrice - charged, taxRate: l.taxRate, tax, amount: total - tax, total }];
  });
}
