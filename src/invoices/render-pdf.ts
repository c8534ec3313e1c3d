// A document as a PDF (pdfkit: docs/decisions.md "Invoices and credit notes"), rendered once when
// it is issued and stored. The PDF's dates are the document's own, so its bytes depend on its
// content alone. The standard Helvetica covers Latin scripts (WinAnsi): names in other scripts
// need an embedded font, which is not done yet.
import type { DocumentContent } from './content.js';
import { formatMoney } from './domain-calls.js';
import { documentLabels, percent } from './labels.js';

const LEFT = 50;
const WIDTH = 495;
/** Description, quantity, unit price, discount, tax rate, tax, amount: x and width of each column. */
const COLUMNS = [
  [LEFT, 165], [215, 35], [250, 65], [315, 55], [370, 45], [415, 60], [475, 70],
] as const;

export async function renderPdf(content: DocumentContent): Promise<Uint8Array<ArrayBuffer>> {
  const { default: PDFDocument } = await import('pdfkit');
  const labels = documentLabels(content);
  const issued = new Date(content.issuedAt);
  const doc = new PDFDocument({ size: 'A4', margin: LEFT, info: { Title: `${labels.title} ${content.number}`, CreationDate: issued, ModDate: issued } });
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const ended = new Promise<void>((resolve, reject) => {
    doc.on('end', resolve);
    doc.on('error', reject);
  });
  const money = (minor: number) => formatMoney(minor, content.currency);

  if (!content.livemode) doc.font('Helvetica-Bold').fontSize(11).fillColor('#b00020').text(labels.testMode).fillColor('black').moveDown(0.5);
  doc.font('Helvetica-Bold').fontSize(20).text(`${labels.title} ${content.number}`).moveDown(0.5);
  doc.font('Helvetica').fontSize(10);
  for (const [term, value] of labels.facts) doc.text(`${term}: ${value}`);
  doc.moveDown();

  const top = doc.y;
  const { seller, buyer } = content;
  const block = (x: number, title: string, lines: readonly (string | null)[]) => {
    doc.font('Helvetica-Bold').text(title, x, top, { width: 230 }).font('Helvetica');
    for (const l of lines) if (l) doc.text(l, x, undefined, { width: 230 });
    return doc.y;
  };
  const sellerEnd = block(LEFT, 'Seller', [seller.legalName, ...seller.address, seller.taxId ? `VAT / tax id: ${seller.taxId}` : null]);
  const buyerEnd = block(310, 'Billed to', [buyer.name, buyer.email, ...buyer.address, buyer.country, buyer.taxId ? `VAT / tax id: ${buyer.taxId}` : null]);
  doc.y = Math.max(sellerEnd, buyerEnd) + 20;

  const row = (cells: readonly string[], bold = false) => {
    const y = doc.y;
    doc.font(bold ? 'Helvetica-Bold' : 'Helvetica');
    let bottom = y;
    cells.forEach((cell, i) => {
      const [x, width] = COLUMNS[i]!;
      doc.text(cell, x, y, { width, align: i === 0 ? 'left' : 'right' });
      bottom = Math.max(bottom, doc.y);
    });
    doc.y = bottom + 4;
  };
  row(['Description', 'Qty', 'Unit price', 'Discount', 'Tax rate', 'Tax', 'Amount'], true);
  for (const l of content.lines) row([l.description, String(l.quantity), money(l.unitPrice), money(l.discount), percent(l.taxRate), money(l.tax), money(l.amount)]);
  doc.moveDown();

  const total = (label: string, value: string, bold = false) => {
    const y = doc.y;
    doc.font(bold ? 'Helvetica-Bold' : 'Helvetica').text(label, LEFT, y, { width: WIDTH - 80, align: 'right' }).text(value, WIDTH - 30, y, { width: 80, align: 'right' });
  };
  total('Subtotal', money(content.subtotal));
  for (const t of content.taxes) total(`${labels.taxAt(t.rate)} on ${money(t.amount)}`, money(t.tax));
  total(labels.totalLabel, money(content.total), true);
  doc.moveDown();
  doc.font('Helvetica');
  for (const note of content.notes) doc.text(note, LEFT, undefined, { width: WIDTH });
  doc.end();
  await ended;
  return new Uint8Array(Buffer.concat(chunks));
}
