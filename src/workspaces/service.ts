import type { Prisma, PrismaClient, Workspace } from '../generated/prisma/client.js';
import type { Db } from '../db/client.js';
import { isUuid } from '../core/uuid.js';
import { WORKSPACE_SETTINGS, workspaceSettings, type SettingName } from '../core/workspace-settings.js';
import { normalizeTaxRegistrations } from '../tax/index.js';
import { generateKeyPair, hashSecretKey, type KeyMode } from './keys.js';

export interface IssuedKeys {
  publicKey: string;
  secretKey: string;
  testPublicKey: string;
  testSecretKey: string;
}


/** Issues a live and a test key pair; only the secrets' hashes are stored. */
async function issueKeys(tx: Prisma.TransactionClient, workspaceId: string): Promise<IssuedKeys> {
  const issue = async (mode: KeyMode) => {
    const pair = generateKeyPair(mode);
    await tx.apiKey.create({ data: { workspaceId, mode, publicKey: pair.publicKey, secretKeyHash: hashSecretKey(pair.secretKey) } });
    return pair;
  };
  const live = await issue('live');
  const test = await issue('test');
  return { publicKey: live.publicKey, secretKey: live.secretKey, testPublicKey: test.publicKey, testSecretKey: test.secretKey };
}

/** An API key as a request's authentication reads it, with its whole workspace. */
export type KeyWithWorkspace = { mode: KeyMode; secretKeyHash: string; revokedAt: Date | null; workspace: Workspace };

/**
 * The key with this public key and its workspace, or null. In SQL of our own: it runs on every
 * request (with the products list's read, 1.41 to 1.11 CPU ms per list request against Prisma's
 * findUnique with include; docs/benchmarks.md). `w.*`: every column of the workspace, as Prisma reads it.
 */
export async function keyWithWorkspace(prisma: PrismaClient, publicKey: string): Promise<KeyWithWorkspace | null> {
  const [row] = await prisma.$queryRaw<(Workspace & { keyMode: KeyMode; keySecretHash: string; keyRevokedAt: Date | null })[]>`
    SELECT w.*, k.mode::text AS "keyMode", k."secretKeyHash" AS "keySecretHash", k."revokedAt" AS "keyRevokedAt"
    FROM "ApiKey" k JOIN "Workspace" w ON w.id = k."workspaceId" WHERE k."publicKey" = ${publicKey}`;
  if (!row) return null;
  const { keyMode, keySecretHash, keyRevokedAt, ...workspace } = row;
  return { mode: keyMode, secretKeyHash: keySecretHash, revokedAt: keyRevokedAt, workspace };
}

/** The workspace, or an error naming the id (a malformed id names no workspace). */
export async function requireWorkspace(prisma: Db, workspaceId: string): Promise<Workspace> {
  const workspace = isUuid(workspaceId) ? await prisma.workspace.findUnique({ where: { id: workspaceId } }) : null;
  if (!workspace) throw new Error(`No workspace ${workspaceId}`);
  return workspace;
}

/** A workspace comes with one project and its first keys. */
export async function createWorkspace(prisma: PrismaClient, name: string) {
  return prisma.$transaction(async (tx) => {
    const workspace = await tx.workspace.create({ data: { name } });
    const project = await tx.project.create({ data: { workspaceId: workspace.id, name: 'Default project' } });
    const keys = await issueKeys(tx, workspace.id);
    return { workspaceId: workspace.id, projectId: project.id, ...keys };
  });
}

/** Revokes every active key of the workspace and issues new ones, atomically. */
export async function rotateKeys(prisma: PrismaClient, workspaceId: string) {
  return prisma.$transaction(async (tx) => {
    await requireWorkspace(tx, workspaceId);
    await tx.apiKey.updateMany({ where: { workspaceId, revokedAt: null }, data: { revokedAt: new Date() } });
    return { workspaceId, ...(await issueKeys(tx, workspaceId)) };
  });
}


function parseSetting(name: string, raw: string): [SettingName, boolean | number | string | null] {
  if (!(name in WORKSPACE_SETTINGS)) throw new Error(`Unknown setting ${name}; known: ${Object.keys(WORKSPACE_SETTINGS).join(', ')}`);
  const kind = WORKSPACE_SETTINGS[name as SettingName];
  if (kind === 'boolean') {
    if (raw !== 'true' && raw !== 'false') throw new Error(`${name} must be true or false`);
    return [name as SettingName, raw === 'true'];
  }
  if (kind === 'integer') {
    if (!/^\d+$/.test(raw) || Number(raw) > 2_147_483_647) throw new Error(`${name} must be a non-negative integer`);
    return [name as SettingName, Number(raw)];
  }
  if (kind === 'taxRegistrations') return [name as SettingName, normalizeTaxRegistrations(raw)];
  if (Array.isArray(kind)) {
    if (!kind.includes(raw)) throw new Error(`${name} must be one of ${kind.join(', ')}`);
    return [name as SettingName, raw];
  }
  if (name === 'name' && raw === '') throw new Error('name must not be empty');
  if (name === 'customSubscriptionManagementUrl' && raw !== '' && !/^https?:\/\/\S+$/.test(raw)) {
    throw new Error('customSubscriptionManagementUrl must be an http(s) URL or empty');
  }
  if (name === 'contactEmail' && raw !== '' && !/^[^\s@]+@[^\s@]+$/.test(raw)) throw new Error('contactEmail must be an email address or empty');
  if ((name === 'brandColor' || name === 'accentColor') && raw !== '') {
    if (!/^#[0-9a-fA-F]{6}$/.test(raw)) throw new Error(`${name} must be a colour as #rrggbb, or empty`);
    return [name, raw.toLowerCase()];
  }
  if (name === 'portalSwitchOfferIds' && raw !== '') {
    const ids = raw.split(',').map((id) => id.trim().toLowerCase());
    if (!ids.every(isUuid)) throw new Error('portalSwitchOfferIds must be offer ids separated by commas, or empty');
    return [name, [...new Set(ids)].join(',')];
  }
  // A number is the prefix and the series' place: letters, digits and a few separators keep it one token on every document.
  if (name === 'invoicePrefix' && raw !== '' && !/^[A-Za-z0-9][A-Za-z0-9._/-]{0,19}$/.test(raw)) {
    throw new Error('invoicePrefix must be 1 to 20 letters, digits, ".", "_", "/" or "-" (starting with a letter or digit), or empty');
  }
  return [name as SettingName, raw === '' ? null : raw];
}

export function settingsView(workspace: Workspace) {
  const { name, ...settings } = workspaceSettings(workspace);
  return { workspaceId: workspace.id, name, ...settings };
}

/** Applies `key=value` assignments (all validated before anything is written). */
export async function setWorkspaceSettings(prisma: PrismaClient, workspaceId: string, assignments: string[]) {
  if (assignments.length === 0) throw new Error('Give at least one key=value');
  const data = Object.fromEntries(
    assignments.map((assignment) => {
      const at = assignment.indexOf('=');
      if (at <= 0) throw new Error(`Expected key=value, got ${assignment}`);
      return parseSetting(assignment.slice(0, at), assignment.slice(at + 1));
    }),
  );
  await requireWorkspace(prisma, workspaceId);
  return settingsView(await prisma.workspace.update({ where: { id: workspaceId }, data }));
}
