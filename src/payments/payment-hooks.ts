// What other domains hang on payments, without payments importing them: a payment became PAID
// (the subscriptions start their workflow on a first payment), processor outcomes of charges a
// domain makes itself (subscription renewals, retried by dunning, so a failed charge does not end
// the payment). The domains register in their module.ts. A subscription's first payment settling
// is ./first-payment-hook.ts.
import type { Payment, PrismaClient } from '../generated/prisma/client.js';
import type { TemporalConnection } from '../temporal/client.js';
import type { ChargeOutcome } from './charge-outcomes.js';

export interface HookDeps {
  prisma: PrismaClient;
  temporal: TemporalConnection;
}

/** What a paid payment's handlers are told of it: its own columns, so that a handler with nothing to do for it (not a subscription's first payment) reads nothing. */
export type PaidPayment = Pick<Payment, 'id' | 'sequence' | 'subscriptionId'>;
export type PaymentPaidHandler = (deps: HookDeps, payment: PaidPayment) => Promise<void>;
const paymentPaidHandlers: PaymentPaidHandler[] = [];

/** Handlers run after the payment's PAID is committed, possibly more than once (retried activities, redelivered events): they must be idempotent. */
export function onPaymentPaid(handler: PaymentPaidHandler): void {
  paymentPaidHandlers.push(handler);
}

export async function notifyPaymentPaid(deps: HookDeps, payment: PaidPayment): Promise<void> {
  for (const handler of paymentPaidHandlers) await handler(deps, payment);
}

/** The payment an outcome is routed for, as the event's route read it: a payment of no subscription period is no router's. */
export type RoutedPayment = Pick<Payment, 'id' | 'subscriptionPeriod'>;
/** True when the router took the outcome (its payment is one it charges itself). */
export type ChargeOutcomeRouter = (deps: HookDeps, payment: RoutedPayment, outcome: ChargeOutcome) => Promise<boolean>;
const chargeOutcomeRouters: ChargeOutcomeRouter[] = [];

export function onChargeOutcome(router: ChargeOutcomeRouter): void {
  chargeOutcomeRouters.push(router);
}

export async function routeChargeOutcome(deps: HookDeps, payment: RoutedPayment, outcome: ChargeOutcome): Promise<boolean> {
  for (const router of chargeOutcomeRouters) if (await router(deps, payment, outcome)) return true;
  return false;
}
