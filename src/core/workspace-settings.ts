// The settings of a workspace: what the admin CLI sets and what a request's principal carries.
// One list, so a new setting is added in one place.
import type { Workspace } from '../generated/prisma/client.js';

export type SettingKind = 'boolean' | 'integer' | 'string';

export const WORKSPACE_SETTINGS = {
  testMode: 'boolean',
  offline: 'boolean',
  productLimit: 'integer',
  portalEnabled: 'boolean',
  refundsEnabled: 'boolean',
  embeddedPaymentMethodUpdate: 'boolean',
  customSubscriptionManagementUrl: 'string',
  pricesIncludeTax: 'boolean',
  contactEmail: 'string',
  name: 'string',
  brandColor: 'string',
  accentColor: 'string',
  portalPauseEnabled: 'boolean',
  portalSwitchOfferIds: 'string',
} as const satisfies Record<string, SettingKind>;

export type SettingName = keyof typeof WORKSPACE_SETTINGS;

export type WorkspaceSettings = Pick<Workspace, SettingName>;

export function workspaceSettings(workspace: Workspace): WorkspaceSettings {
  return Object.fromEntries(Object.keys(WORKSPACE_SETTINGS).map((name) => [name, workspace[name as SettingName]])) as WorkspaceSettings;
}
