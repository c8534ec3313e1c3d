// Who is calling and which records they may see: the tenant boundary every query filters on.
import type { WorkspaceSettings } from './workspace-settings.js';

/** One workspace, live or test data. */
export interface Scope {
  workspaceId: string;
  livemode: boolean;
}

/** The Prisma where-clause fields that keep a query inside one scope. */
export const inScope = (scope: Scope) => ({ workspaceId: scope.workspaceId, livemode: scope.livemode });

export type Access = 'read' | 'write';

/** Who is calling: one workspace, in live or test mode, with or without write access. */
export interface Principal extends Scope {
  canWrite: boolean;
  settings: WorkspaceSettings;
}
