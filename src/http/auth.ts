import type { PrismaClient } from '../generated/prisma/client.js';
import type { Access, Principal } from '../core/scope.js';
import { workspaceSettings } from '../core/workspace-settings.js';
import { ApiError } from '../errors.js';
import { isWellFormedPublicKey, isWellFormedSecretKey, secretKeyMatches } from '../workspaces/keys.js';
import { keyWithWorkspace } from '../workspaces/service.js';

type HeaderSource = { get(name: string): string | null };

const unauthorized = (message: string) => new ApiError(401, message);

/**
 * Authenticates the key headers. Every failure is 401 (never 403), and the messages never echo
 * a presented key. `write` needs the secret key of the same key pair as the public key.
 */
export async function authenticate(prisma: PrismaClient, headers: HeaderSource, access: Access): Promise<Principal> {
  const publicKey = headers.get('x-svc-public-key');
  if (!publicKey) throw unauthorized('Missing x-svc-public-key header');
  if (!isWellFormedPublicKey(publicKey)) throw unauthorized('Malformed public key');
  const secretKey = headers.get('x-svc-secret-key') || null;
  if (access === 'write') {
    if (!secretKey) throw unauthorized('This operation needs the x-svc-secret-key header');
    if (!isWellFormedSecretKey(secretKey)) throw unauthorized('Malformed secret key');
  }

  const key = await keyWithWorkspace(prisma, publicKey);
  if (!key || key.revokedAt) throw unauthorized('Invalid or revoked public key');
  const { workspace } = key;
  if (workspace.offline) throw unauthorized('This workspace is offline');
  if (key.mode === 'test' && !workspace.testMode) throw unauthorized('Test mode is not set up for this workspace');
  // A read may carry a secret too (GraphQL decides per field); it only grants writes if it matches.
  const canWrite = secretKey !== null && secretKeyMatches(secretKey, key.secretKeyHash);
  if (access === 'write' && !canWrite) throw unauthorized('Invalid secret key');

  return {
    workspaceId: workspace.id,
    livemode: key.mode === 'live',
    canWrite,
    settings: workspaceSettings(workspace),
  };
}
