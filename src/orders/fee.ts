// The platform fee of an order or payment: a percentage of its value plus a fixed amount, read
// from PLATFORM_FEE_PERCENT and PLATFORM_FEE_FIXED (README, "Configuration"). A malformed value
// stops the process at start rather than charge merchants a wrong fee.

export interface FeeRule {
  /** Basis points (1/100 of a percent): integers keep the arithmetic exact. */
  basisPoints: number;
  /** Minor units of the order's currency. */
  fixed: number;
}

/** The fee on `value` minor units: never above the value, 0 for a free order. Half a unit rounds up. */
export function platformFee(value: number, rule: FeeRule): number {
  if (value <= 0) return 0;
  // value <= 2^31 and basisPoints <= 10^4: the product stays far below 2^53.
  const percentage = Math.floor((value * rule.basisPoints + 5_000) / 10_000);
  return Math.min(value, percentage + rule.fixed);
}

/** A payment's fee with the rule it was computed by, as the payment keeps them (its refunds give the fee back by that rule). */
export const paymentFee = (value: number, rule: FeeRule) => ({ fee: platformFee(value, rule), feeBasisPoints: rule.basisPoints, feeFixed: rule.fixed });

/** The rule a payment's fee was computed by; `fallback` for a payment made before the rule was kept on it. */
export function feeRuleOf(payment: { feeBasisPoints: number | null; feeFixed: number | null }, fallback: FeeRule): FeeRule {
  return payment.feeBasisPoints === null || payment.feeFixed === null ? fallback : { basisPoints: payment.feeBasisPoints, fixed: payment.feeFixed };
}

/** "2.9" -> 290 basis points; 0 to 100 with at most two decimals. */
export function parsePercent(raw: string, name: string): number {
  if (!/^\d{1,3}(\.\d{1,2})?$/.test(raw.trim())) throw new Error(`${name} must be a percentage from 0 to 100 with at most two decimals, e.g. 2.9`);
  const [whole, fraction = ''] = raw.trim().split('.');
  const basisPoints = Number(whole) * 100 + Number(fraction.padEnd(2, '0'));
  if (basisPoints > 10_000) throw new Error(`${name} must be at most 100`);
  return basisPoints;
}

function parseFixed(raw: string, name: string): number {
  if (!/^\d{1,9}$/.test(raw.trim())) throw new Error(`${name} must be a whole number of minor units (0 to 999999999)`);
  return Number(raw.trim());
}

/** The rule of the environment; unset or empty variables take the defaults (5% + 50). */
export function feeRuleFromEnv(env: NodeJS.ProcessEnv = process.env): FeeRule {
  const percent = env.PLATFORM_FEE_PERCENT?.trim() || '5';
  const fixed = env.PLATFORM_FEE_FIXED?.trim() || '50';
  return { basisPoints: parsePercent(percent, 'PLATFORM_FEE_PERCENT'), fixed: parseFixed(fixed, 'PLATFORM_FEE_FIXED') };
}

/** The process's rule, read once when the orders domain loads. */
export const FEE_RULE: FeeRule = feeRuleFromEnv();
