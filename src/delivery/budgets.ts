// The delivery domain's rate limits, per workspace (declared in module.ts, spent by its services).
import { config } from '../config.js';
import type { RateLimitRule, RateLimits } from '../core/rate-limits.js';
import type { PrismaClient } from '../generated/prisma/client.js';

/** The contract's 60 download URLs a minute per workspace (DOWNLOAD_URLS_PER_MINUTE). */
export const downloadUrlBudget: RateLimitRule = {
  name: 'download-url',
  points: config.downloads.urlsPerMinute,
  windowSeconds: 60,
  message: `At most ${config.downloads.urlsPerMinute} download URLs a minute per workspace`,
};

/** LICENSE_KEY_VALIDATIONS_PER_MINUTE per workspace for validate, activate and deactivate together. */
export const keyValidationBudget: RateLimitRule = {
  name: 'license-key-validation',
  points: config.licenseKeyValidationsPerMinute,
  windowSeconds: 60,
  message: `At most ${config.licenseKeyValidationsPerMinute} license key validations a minute per workspace`,
};

/**
 * LICENSE_KEY_VALIDATIONS_PER_ADDRESS_PER_MINUTE per client address and workspace, spent before the
 * workspace's: one address that asks too often is refused alone and stops spending the budget of
 * the workspace's other customers.
 */
export const keyValidationAddressBudget: RateLimitRule = {
  name: 'license-key-validation-address',
  points: config.licenseKeyValidationsPerAddressPerMinute,
  windowSeconds: 60,
  message: `At most ${config.licenseKeyValidationsPerAddressPerMinute} license key validations a minute per client address`,
};

/** What the services that spend a budget take (a resolver's context fits). */
export interface BudgetedDeps {
  prisma: PrismaClient;
  rateLimits: RateLimits;
}

/** A budget per client too: who is calling, as the request context names it. */
export interface ClientBudgetedDeps extends BudgetedDeps {
  client: string;
}
