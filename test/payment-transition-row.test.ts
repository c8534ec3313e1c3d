import { paymentRowInclude } from '../src/orders/index.js';
import { markPaymentFailed, markPaymentPaid } from '../src/payments/index.js';
import { newWorkspace, type Workspace } from './support/api.js';
import { salesDb, seedOrder, type OrderSeed } from './support/sales.js';

// A payment's transition writes and reads its row in one statement of our own (UPDATE … RETURNING
// in src/payments/transitions.ts), naming every column: the row must be the one Prisma reads,
// column for column, so that a column added to the model and not to the statement fails here.

let ws: Workspace;
beforeAll(async () => {
  ws = await newWorkspace('Transition rows');
});

const prismaRow = (paymentId: string) => salesDb().payment.findUniqueOrThrow({ where: { id: paymentId }, include: paymentRowInclude });
const SUBSCRIPTION: OrderSeed = { subscription: { recurringInterval: 'month' } };

test.each([
  ['a payment', {}, null],
  ["a subscription's first payment", SUBSCRIPTION, { number: expect.any(String) }],
])('%s marked failed: the row the transition gives is the row Prisma reads after it; asked again, nothing changes', async (_, seed, subscription) => {
  const { payment } = await seedOrder(ws, seed);
  const failure = { failureCode: 'card_declined', failureMessage: 'Your card was declined.', processorChargeId: `ch_row_${payment.id}` };
  const first = await salesDb().$transaction((tx) => markPaymentFailed(tx, payment.id, failure));
  expect(first.changed).toBe(true);
  expect(first.payment).toStrictEqual(await prismaRow(payment.id));
  expect(first.payment).toMatchObject({ status: 'FAILED', ...failure, subscription });
  const again = await salesDb().$transaction((tx) => markPaymentFailed(tx, payment.id, failure));
  expect(again).toStrictEqual({ changed: false, payment: await prismaRow(payment.id) });
});

test('a payment marked paid: its paidAt and charge in the row given, the failure cleared, as Prisma reads it', async () => {
  const { payment } = await seedOrder(ws);
  const paidAt = new Date(Date.now() - 60_000);
  const result = await salesDb().$transaction((tx) => markPaymentPaid(tx, payment.id, { processorChargeId: `ch_paid_${payment.id}`, paidAt }));
  expect(result.payment).toStrictEqual(await prismaRow(payment.id));
  expect(result.payment).toMatchObject({ status: 'PAID', paidAt, processorChargeId: `ch_paid_${payment.id}`, failureCode: null, failureMessage: null });
});
