// The settings of a workspace: what the admin CLI sets and what a request's principal carries.
// One list, so a new setting is added in one place.
import type { Workspace } from '../generated/prisma/client.js';

/** `taxRegistrations`: src/tax/registrations.ts's form; a list: one of these words. */
export type SettingKind = 'boolean' | 'integer' | 'string' | 'taxRegistrations' | readonly string[];

export const WORKSPACE_SETTINGS = {
  testMode: 'boolean',
  offline: 'boolean',
  productLimit: 'integer',
  portalEnabled: 'boolean',
  refundsEnabled: 'boolean',
  embeddedPaymentMethodUpdate: 'boolean',
  customSubscriptionManagementUrl: 'string',
  pricesIncludeTax: 'boolean',
  taxRegistrations: 'taxRegistrations',
  noTaxData: ['sell_without_tax', 'refuse'],
  contactEmail: 'string',
  name: 'string',
  brandColor: 'string',
  accentColor: 'string',
  portalPauseEnabled: 'boolean',
  portalSwitchOfferIds: 'string',
  invoiceLegalName: 'string',
  invoiceAddress: 'string',
  invoiceTaxId: 'string',
  invoicePrefix: 'string',
} as const satisfies Record<string, SettingKind>;

export type SettingName = keyof typeof WORKSPACE_SETTINGS;

export type WorkspaceSettings = Pick<Workspace, SettingName>;

export function workspaceSettings(workspace: Workspace): WorkspaceSettings {
  return Object.fromEntries(Object.keys(WORKSPACE_SETTINGS).map((name) => [name, workspace[name as SettingName]])) as WorkspaceSettings;
}
