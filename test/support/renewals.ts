import type { Client } from '@temporalio/client';

import type { PrismaClient } from '../../src/generated/prisma/client.js';
import { eventually } from './checkout.js';

// What renewals must come to after processes died under them (test/subscriptions-kill.test.ts and
// test/subscriptions-year-kill.test.ts), read from the database and the workflows they ran on.

/** The renewal payments (periods 2 on) of these subscriptions, with their charges. */
export const renewalPayments = (db: PrismaClient, subscriptionIds: string[]) =>
  db.payment.findMany({ where: { subscriptionId: { in: subscriptionIds }, subscriptionPeriod: { gt: 1 } }, include: { charges: true } });

export interface RenewalBooks {
  db: PrismaClient;
  temporal: Client;
  workspaceId: string;
}

/**
 * Once every workflow caught up with its clock (each subscription renewed `periods` times, nothing
 * PENDING): exactly one renewal payment per (subscription, period), each PAID with exactly one
 * succeeded charge at the processor (the sandbox's own books) and one in ours, one payment_success
 * each, every workflow running and active on its last period.
 */
export async function expectEachRenewalOnce({ db, temporal, workspaceId }: RenewalBooks, subs: Array<{ id: string; number: string }>, periods: number) {
  const ids = subs.map((s) => s.id);
  const handles = subs.map((s) => temporal.workflow.getHandle(`subscription/${workspaceId}/${s.number}`));
  const read = async () => ({
    renewals: (await renewalPayments(db, ids)).sort((x, y) => x.number.localeCompare(y.number)),
    states: await Promise.all(handles.map((h) => h.query<{ status: string; period: number }>('state').catch(() => null))),
  });
  const { renewals, states } = await eventually(
    read,
    (now) => now.renewals.length === subs.length * periods && now.renewals.every((p) => p.status === 'PAID') && now.states.every((st) => st?.status === 'active' && st.period === periods + 1),
    180_000,
    500,
  ).catch(async (error: Error) => {
    const now = await read();
    throw new Error(
      `Not settled (${error.message.slice(0, 30)}): workflow states ${JSON.stringify(now.states)}; renewals not PAID ${JSON.stringify(now.renewals.filter((p) => p.status !== 'PAID').map((p) => [p.number, p.status, p.charges.length]))} of ${now.renewals.length}`,
    );
  });

  // Exactly one renewal payment per (subscription, period), periods 2..n with no gap, numbered {order}-{n}.
  for (const [i, s] of subs.entries()) {
    const own = renewals.filter((p) => p.subscriptionId === s.id).sort((x, y) => x.subscriptionPeriod! - y.subscriptionPeriod!);
    const last = states[i]!.period;
    expect(own.map((p) => p.subscriptionPeriod)).toEqual(Array.from({ length: last - 1 }, (_, k) => k + 2));
    expect(own.map((p) => p.number)).toEqual(own.map((p) => `${s.number}-${p.sequence}`));
    expect(new Set(own.map((p) => p.sequence)).size).toBe(own.length);
  }
  expect(renewals.filter((p) => p.status !== 'PAID').map((p) => [p.number, p.status])).toEqual([]);
  expect(renewals.map((p) => p.amount)).toEqual(Array(renewals.length).fill(900));

  // The processor's books: each renewal exactly one succeeded charge, the one the payment names; no other charge.
  const paymentIds = renewals.map((p) => p.id);
  const atProcessor = await db.sandboxCharge.findMany({ where: { paymentId: { in: paymentIds } } });
  expect(atProcessor.filter((c) => c.status !== 'succeeded')).toEqual([]);
  expect(atProcessor).toHaveLength(renewals.length);
  const byPayment = new Map(atProcessor.map((c) => [c.paymentId, c.id]));
  expect(renewals.filter((p) => p.processorChargeId !== byPayment.get(p.id)).map((p) => p.number)).toEqual([]);
  // Ours: one charge row per renewal, succeeded, the same processor charge.
  expect(renewals.filter((p) => p.charges.length !== 1 || p.charges[0]!.status !== 'succeeded' || p.charges[0]!.processorChargeId !== p.processorChargeId).map((p) => p.number)).toEqual([]);

  // One payment_success per renewal; no payment_failed.
  const events = await db.event.findMany({ where: { workspaceId: workspaceId, type: { in: ['payment_success', 'payment_failed'] } } });
  const about = (type: string) => events.filter((e) => e.type === type).map((e) => (e.payload as { payment: { id: string } }).payment.id).filter((id) => paymentIds.includes(id));
  expect(about('payment_success').sort()).toEqual([...paymentIds].sort());
  expect(about('payment_failed')).toEqual([]);

  // The workflows are healthy: running, active, the subscriptions' rows agreeing.
  for (const h of handles) expect((await h.describe()).status.name).toBe('RUNNING');
  const rows = await db.subscription.findMany({ where: { id: { in: ids } } });
  expect(rows.map((r) => r.status)).toEqual(Array(subs.length).fill('active'));
}
