import fc from 'fast-check';

import { allocate, creditLines, line, rateOf, totalsOf } from '../src/invoices/content.js';

// What a document says, as the pure functions compute it: a line's rate read back from its
// amounts, the totals per rate, and a credit note's lines as its share of an invoice, whose
// total is the refund's amount to the unit and whose tax adds up with the others' to the invoice's.

describe('the rate a line was taxed at', () => {
  test.each([
    [190, 999, false, 0.19],
    [190, 1000, false, 0.19],
    [1, 5, false, 0.2],
    [150, 1000, true, 0.15],
    [155, 1000, false, 0.155],
    [14975, 100_000, false, 0.14975],
    [0, 1000, false, 0],
  ])('tax %d on %d (inclusive: %s) reads %d', (tax, net, inclusive, rate) => {
    expect(rateOf(tax, net, inclusive)).toBe(rate);
  });
});

test('allocate splits an amount in proportion, in whole units, to the unit', () => {
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 1_000_000 }), fc.array(fc.integer({ min: 0, max: 100_000 }), { minLength: 1, maxLength: 8 }), (amount, weights) => {
      const shares = allocate(amount, weights);
      expect(shares.reduce((s, x) => s + x, 0)).toBe(amount);
      expect(shares.every((x) => Number.isInteger(x) && x >= 0)).toBe(true);
    }),
  );
});

describe('credit notes', () => {
  const invoice = [
    line({ itemId: 'a', description: 'A', quantity: 3, unitPrice: 1000, discount: 0, tax: 570, taxInclusive: false }),
    line({ itemId: 'b', description: 'B', quantity: 1, unitPrice: 500, discount: 50, tax: 0, taxInclusive: false }),
  ];

  test('the whole invoice credited gives back its lines as they were', () => {
    expect(creditLines(invoice, 3570 + 450, [], false, 570)).toEqual(invoice);
    expect(totalsOf(invoice)).toEqual({ taxes: [{ rate: 0.19, amount: 3000, tax: 570 }, { rate: 0, amount: 450, tax: 0 }], subtotal: 3450, tax: 570, total: 4020 });
  });

  test("an items refund credits those items' lines only, for the units given back", () => {
    expect(creditLines(invoice, 1190, [{ id: 'a', quantity: 1 }], false, null)).toEqual([
      { itemId: 'a', description: 'A', quantity: 1, unitPrice: 1000, discount: 0, taxRate: 0.19, tax: 190, amount: 1000, total: 1190 },
    ]);
  });

  test('any split of the invoice into refunds: each credit note totals its refund, and their taxes add up to the invoice', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 4020 }), { minLength: 1, maxLength: 6 }), fc.boolean(), (cuts, inclusive) => {
        const points = [...new Set(cuts.map((c) => Math.min(c, 4020)))].sort((a, b) => a - b);
        const amounts = points.map((p, i) => p - (points[i - 1] ?? 0)).filter((a) => a > 0);
        if (points.at(-1) !== 4020) amounts.push(4020 - (points.at(-1) ?? 0));
        let credited = 0;
        let taxCredited = 0;
        for (const amount of amounts) {
          const last = credited + amount === 4020;
          const lines = creditLines(invoice, amount, [], inclusive, last ? 570 - taxCredited : null);
          expect(lines.reduce((s, l) => s + l.total, 0)).toBe(amount);
          for (const l of lines) expect(l.amount + l.tax).toBe(l.total);
          credited += amount;
          taxCredited += lines.reduce((s, l) => s + l.tax, 0);
        }
        expect(taxCredited).toBe(570);
      }),
    );
  });
});
