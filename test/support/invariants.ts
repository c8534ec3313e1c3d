import pg from 'pg';

import { createPrismaClient } from '../../src/db/client.js';
import { SandboxProcessor } from '../../src/payments/processors/sandbox.js';
import { reconcile } from '../../src/reconciliation/index.js';

// The money invariants, checked on a database after a test file that moves money (wired by
// test/support/money-invariants.ts): every order and payment of the workspaces in scope (the
// file's own, on the suite's shared database; every one on a database of the file's own) must
// agree with itself, with its refunds and with the sandbox processor's books. Each check is one
// query that returns the rows breaking it, described in words; an empty list is a pass.

export interface InvariantScope {
  /** The workspaces to check; undefined: every one (a database of the file's own). */
  workspaceIds?: readonly string[];
  /** The reconciliation looks at the processor's charges and refunds created since then. */
  since: Date;
}

/** Rows of payments, orders, refunds and items in scope: `$1` is the workspace list, null for every one. */
const IN_SCOPE = `($1::uuid[] IS NULL OR "workspaceId" = ANY($1::uuid[]))`;
const PAID = `('PAID', 'PARTIALLY_REFUNDED', 'REFUNDED')`;
/** The money of an expired payment given back (the stranded-charge refund) is off the payment's books. */
const STRANDED = `'expired_payment'`;

interface Check {
  name: string;
  sql: string;
}

const CHECKS: readonly Check[] = [
  {
    name: 'succeeded refunds <= paid (per payment)',
    sql: `SELECT p.id, p.amount, sum(rp.amount) AS succeeded FROM "Payment" p JOIN "RefundPart" rp ON rp."paymentId" = p.id AND rp.status = 'succeeded'
          WHERE ${IN_SCOPE.replace('"workspaceId"', 'p."workspaceId"')} GROUP BY p.id HAVING sum(rp.amount) > p.amount`,
  },
  {
    name: 'succeeded refunds <= paid (per order, expired payments given back apart)',
    sql: `SELECT o.id, o.status, paid.amount AS paid, refunded.amount AS refunded FROM "Order" o
          CROSS JOIN LATERAL (SELECT coalesce(sum(amount), 0) AS amount FROM "Payment" WHERE "orderId" = o.id AND status IN ${PAID}) paid
          CROSS JOIN LATERAL (SELECT coalesce(sum(rp.amount), 0) AS amount FROM "Refund" r JOIN "RefundPart" rp ON rp."refundId" = r.id
                              WHERE r."orderId" = o.id AND rp.status = 'succeeded' AND r.source <> ${STRANDED}) refunded
          WHERE ${IN_SCOPE.replace('"workspaceId"', 'o."workspaceId"')} AND refunded.amount > paid.amount`,
  },
  {
    name: "a payment's refundedAmount is its refunds not failed (pending, succeeded, requires_attention)",
    sql: `SELECT p.id, p.status, p."refundedAmount", held.amount AS held FROM "Payment" p
          CROSS JOIN LATERAL (SELECT coalesce(sum(rp.amount), 0) AS amount FROM "RefundPart" rp JOIN "Refund" r ON r.id = rp."refundId"
                              WHERE rp."paymentId" = p.id AND rp.status IN ('pending', 'succeeded', 'requires_attention') AND r.source <> ${STRANDED}) held
          WHERE ${IN_SCOPE.replace('"workspaceId"', 'p."workspaceId"')} AND p."refundedAmount" <> held.amount`,
  },
  {
    name: "a paid payment's status follows its succeeded refunds (PAID: none, PARTIALLY_REFUNDED: some, REFUNDED: all)",
    sql: `SELECT p.id, p.status, p.amount, s.amount AS succeeded FROM "Payment" p
          CROSS JOIN LATERAL (SELECT coalesce(sum(rp.amount), 0) AS amount FROM "RefundPart" rp JOIN "Refund" r ON r.id = rp."refundId"
                              WHERE rp."paymentId" = p.id AND rp.status = 'succeeded' AND r.source <> ${STRANDED}) s
          WHERE ${IN_SCOPE.replace('"workspaceId"', 'p."workspaceId"')} AND p.status IN ${PAID}
            AND p.status::text <> CASE WHEN s.amount = 0 THEN 'PAID' WHEN s.amount >= p.amount THEN 'REFUNDED' ELSE 'PARTIALLY_REFUNDED' END`,
  },
  {
    name: 'a payment never paid has no refund on its books',
    sql: `SELECT p.id, p.status, p."refundedAmount" FROM "Payment" p
          WHERE ${IN_SCOPE.replace('"workspaceId"', 'p."workspaceId"')} AND p.status NOT IN ${PAID}
            AND (p."refundedAmount" <> 0 OR EXISTS (SELECT 1 FROM "RefundPart" rp JOIN "Refund" r ON r.id = rp."refundId"
                 WHERE rp."paymentId" = p.id AND rp.status = 'succeeded' AND r.source <> ${STRANDED}))`,
  },
  {
    name: "a refunded order's status follows its paid payments of more than 0 (REFUNDED: all refunded, PARTIALLY_REFUNDED: some money back, PAID: none)",
    sql: `SELECT o.id, o.status, array_agg(p.status) AS payments FROM "Order" o JOIN "Payment" p ON p."orderId" = o.id AND p.status IN ${PAID} AND p.amount > 0
          WHERE ${IN_SCOPE.replace('"workspaceId"', 'o."workspaceId"')} AND o.status IN ${PAID}
          GROUP BY o.id HAVING o.status::text <> CASE WHEN bool_and(p.status = 'REFUNDED') THEN 'REFUNDED' WHEN bool_or(p.status <> 'PAID') THEN 'PARTIALLY_REFUNDED' ELSE 'PAID' END`,
  },
  {
    name: 'fee returned <= fee (a payment, an order keep a fee of 0 or more; a refund returns what its parts returned)',
    sql: `SELECT 'payment' AS row, id, fee FROM "Payment" WHERE ${IN_SCOPE} AND fee < 0
          UNION ALL SELECT 'order', id, fee FROM "Order" WHERE ${IN_SCOPE} AND fee < 0
          UNION ALL SELECT 'refund', r.id, r."feeRefunded" FROM "Refund" r WHERE ${IN_SCOPE.replace('"workspaceId"', 'r."workspaceId"')}
            AND r."feeRefunded" <> (SELECT coalesce(sum("feeRefunded"), 0) FROM "RefundPart" WHERE "refundId" = r.id)
          UNION ALL SELECT 'part', rp.id, rp."feeRefunded" FROM "RefundPart" rp JOIN "Payment" p ON p.id = rp."paymentId"
            WHERE ${IN_SCOPE.replace('"workspaceId"', 'p."workspaceId"')} AND (rp."feeRefunded" < 0 OR (rp.status <> 'succeeded' AND rp."feeRefunded" <> 0))`,
  },
  {
    // A renewal paid after a refund pays the units again (reopenRenewedOrder): on an order renewed
    // since its first payment, the units refunded in earlier periods no longer count, and which
    // refunds are of the current period is not recorded; such an order is held to 0..quantity only.
    name: 'refunded units <= units, and they are the units of the refunds that did not fail (every unit once the order is refunded in full)',
    sql: `SELECT i.id, o.status, i.quantity, i."refundedQuantity", units.expected FROM "OrderItem" i JOIN "Order" o ON o.id = i."orderId"
          CROSS JOIN LATERAL (SELECT CASE WHEN (SELECT count(*) > 0 AND bool_and(p.status = 'REFUNDED') FROM "Payment" p WHERE p."orderId" = o.id AND p.status IN ${PAID}) THEN i.quantity
                                  WHEN EXISTS (SELECT 1 FROM "Payment" p WHERE p."orderId" = o.id AND p.sequence > 1 AND p.status IN ${PAID}) THEN NULL
                                  ELSE LEAST(i.quantity, coalesce((SELECT sum((e->>'quantity')::int) FROM "Refund" r CROSS JOIN LATERAL jsonb_array_elements(r.items) e
                                       WHERE r."orderId" = o.id AND r.status NOT IN ('failed', 'canceled') AND e->>'id' = i.id::text), 0)) END AS expected) units
          WHERE ${IN_SCOPE.replace('"workspaceId"', 'o."workspaceId"')} AND (i."refundedQuantity" > i.quantity OR i."refundedQuantity" < 0 OR i."refundedQuantity" <> coalesce(units.expected, i."refundedQuantity"))`,
  },
  {
    name: "a unit's key is its own: each sold key names a unit of its item, once",
    sql: `SELECT k."orderItemId", array_agg(k.unit) AS units, i.quantity FROM "LicenseKey" k JOIN "OrderItem" i ON i.id = k."orderItemId" JOIN "Order" o ON o.id = i."orderId"
          WHERE ${IN_SCOPE.replace('"workspaceId"', 'o."workspaceId"')} AND k.status = 'sold'
          GROUP BY k."orderItemId", i.quantity HAVING count(*) <> count(DISTINCT k.unit) OR bool_or(k.unit IS NULL OR k.unit < 0 OR k.unit >= i.quantity)`,
  },
  {
    name: 'every sandbox charge of a payment in scope is exactly one charge of ours, and each of our sandbox charges is one of the sandbox',
    sql: `SELECT sc.id, sc."paymentId", count(c.id) AS ours FROM "SandboxCharge" sc JOIN "Payment" p ON p.id::text = sc."paymentId"
          LEFT JOIN "Charge" c ON c.processor = 'sandbox' AND c."processorChargeId" = sc.id
          WHERE ${IN_SCOPE.replace('"workspaceId"', 'p."workspaceId"')} GROUP BY sc.id HAVING count(c.id) <> 1 OR bool_or(c."paymentId"::text <> sc."paymentId")
          UNION ALL SELECT c."processorChargeId", c."paymentId"::text, 0 FROM "Charge" c JOIN "Payment" p ON p.id = c."paymentId"
          WHERE ${IN_SCOPE.replace('"workspaceId"', 'p."workspaceId"')} AND c.processor = 'sandbox' AND c."processorChargeId" IS NOT NULL
            AND NOT EXISTS (SELECT 1 FROM "SandboxCharge" sc WHERE sc.id = c."processorChargeId")`,
  },
  {
    name: 'every sandbox refund of a charge in scope is exactly one refund part of ours, of that charge',
    sql: `SELECT sr.id, sr."chargeId", count(rp.id) AS ours FROM "SandboxRefund" sr JOIN "SandboxCharge" sc ON sc.id = sr."chargeId" JOIN "Payment" p ON p.id::text = sc."paymentId"
          LEFT JOIN "RefundPart" rp ON rp.processor = 'sandbox' AND rp."processorRefundId" = sr.id
          WHERE ${IN_SCOPE.replace('"workspaceId"', 'p."workspaceId"')} GROUP BY sr.id HAVING count(rp.id) <> 1 OR bool_or(rp."processorChargeId" <> sr."chargeId")`,
  },
];

/** What breaks an invariant on the database at `url`, in words with the offending rows; [] when every one holds. */
export async function invariantViolations(url: string, scope: InvariantScope): Promise<string[]> {
  const workspaces = scope.workspaceIds ? [...scope.workspaceIds] : null;
  if (workspaces?.length === 0) return [];
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const violations: string[] = [];
  try {
    for (const check of CHECKS) {
      const { rows } = await client.query(check.sql, [workspaces]);
      if (rows.length > 0) violations.push(`${check.name}: ${JSON.stringify(rows.slice(0, 5))}${rows.length > 5 ? ` and ${rows.length - 5} more` : ''}`);
    }
  } finally {
    await client.end();
  }
  violations.push(...(await reconciliationFindings(url, scope, workspaces)));
  return violations;
}

/** What still breaks an invariant once `check` finds nothing or `waitMs` has passed (the workflows a test left may still be settling); [] when all hold. */
export async function violationsOnceSettled(check: () => Promise<string[]>, waitMs: number, intervalMs: number): Promise<string[]> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const violations = await check();
    if (violations.length === 0 || Date.now() > deadline) return violations;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** The reconciliation of the sandbox over the scope, as a dry run (it repairs nothing): each finding is a violation. */
async function reconciliationFindings(url: string, scope: InvariantScope, workspaceIds: string[] | null): Promise<string[]> {
  const prisma = createPrismaClient(url);
  try {
    const report = await reconcile(
      { prisma, temporal: null, processor: new SandboxProcessor({ prisma }), now: () => new Date() },
      { since: scope.since, until: new Date(), workspaceIds: workspaceIds ?? undefined, dryRun: true },
    );
    return report.findings.map((f) => `the reconciliation finds ${f.kind} (${f.note}): ${JSON.stringify({ processorObjectId: f.processorObjectId, paymentId: f.paymentId, ours: f.ours, theirs: f.theirs })}`);
  } finally {
    await prisma.$disconnect();
  }
}
