// The words both renderings share (the HTML page and the PDF say the same).
import type { DocumentContent } from './content.js';

/** 0.19 as 19%, 0.09975 as 9.975%. */
export const percent = (rate: number) => `${Number((rate * 100).toFixed(4))}%`;

export function documentLabels(content: DocumentContent) {
  const credit = content.kind === 'credit_note';
  const { payment } = content;
  const method = payment.cardLast4 ? `${payment.cardBrand ?? 'Card'} ending in ${payment.cardLast4}` : (payment.method ?? 'No payment method (free)');
  const facts: Array<[string, string]> = [
    [credit ? 'Credit note number' : 'Invoice number', content.number],
    ['Issue date', content.issuedAt.slice(0, 10)],
    ['Supply date', content.supplyDate],
    ...(content.corrects ? [['Corrects invoice', content.corrects.number] as [string, string]] : []),
    ['Order', content.order.number],
    ['Payment', `${payment.number}, ${method}`],
    ['Currency', content.currency],
    ...(content.pricesIncludeTax ? [['Prices', 'Unit prices and discounts include tax'] as [string, string]] : []),
  ];
  return {
    title: credit ? 'Credit note' : 'Invoice',
    totalLabel: credit ? 'Total credited' : 'Total',
    testMode: 'TEST MODE: not a valid tax document',
    taxAt: (rate: number) => `Tax ${percent(rate)}`,
    facts,
  };
}
