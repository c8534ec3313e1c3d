// The buyer portal's rate limits (declared in module.ts, spent by ./endpoint.ts on every
// state-changing form): per client address and per buyer, so neither one address nor one
// signed-in buyer can flood the services behind the forms or a mailbox with sign-in emails.
import type { RateLimitRule } from '../core/rate-limits.js';

/** Sign-in emails asked for by one address. */
export const signInAddressBudget: RateLimitRule = { name: 'portal-sign-in-address', points: 60, windowSeconds: 3600, message: 'Too many sign-in emails asked for from this address' };

/** Sign-in emails to one email address of a workspace. */
export const signInEmailBudget: RateLimitRule = { name: 'portal-sign-in-email', points: 5, windowSeconds: 3600, message: 'Too many sign-in emails asked for this email address' };

/** Other forms (sign-in confirmations, sign-out, subscription changes, downloads) sent from one address. */
export const actionAddressBudget: RateLimitRule = { name: 'portal-action-address', points: 120, windowSeconds: 600, message: 'Too many requests from this address' };

/** Forms sent by one signed-in buyer. */
export const actionBuyerBudget: RateLimitRule = { name: 'portal-action-buyer', points: 60, windowSeconds: 600, message: 'Too many changes in a short time' };

export const PORTAL_BUDGETS: readonly RateLimitRule[] = [signInAddressBudget, signInEmailBudget, actionAddressBudget, actionBuyerBudget];
