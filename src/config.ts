import path from 'node:path';

import { trustedProxiesFromEnv } from './http/client-address.js';

// All configuration comes from environment variables with safe defaults (documented in README).
export function intEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer`);
  return value;
}

/** `true` or `false`; anything else stops the start. */
function boolEnv(name: string, fallback: boolean): boolean {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw !== 'true' && raw !== 'false') throw new Error(`${name} must be true or false`);
  return raw === 'true';
}

const MAX_REDIRECT_SECONDS = 300;

/** S3-compatible storage of downloadable files: on when S3_BUCKET is set (src/delivery/storage.ts). */
function s3Env() {
  const bucket = process.env.S3_BUCKET || undefined;
  if (!bucket) return undefined;
  const accessKeyId = process.env.S3_ACCESS_KEY_ID || undefined;
  const secretAccessKey = process.env.S3_SECRET_ACCESS_KEY || undefined;
  // One without the other would quietly fall back to the SDK's default credentials.
  if (!accessKeyId !== !secretAccessKey) throw new Error('S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY are set together (or neither, for the AWS SDK default credentials)');
  const endpoint = process.env.S3_ENDPOINT || undefined;
  if (endpoint !== undefined && !/^https?:\/\/[^/]+\/?$/.test(endpoint)) throw new Error('S3_ENDPOINT must be an http(s) origin, e.g. http://127.0.0.1:8333');
  const redirectSeconds = intEnv('S3_PRESIGNED_REDIRECT_SECONDS', 0);
  // Short-lived by design: a presigned URL cannot be taken back once the item is refunded.
  if (redirectSeconds > MAX_REDIRECT_SECONDS) throw new Error(`S3_PRESIGNED_REDIRECT_SECONDS must be at most ${MAX_REDIRECT_SECONDS}`);
  return {
    bucket,
    region: process.env.S3_REGION || 'us-east-1',
    endpoint,
    credentials: accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey } : undefined,
    forcePathStyle: boolEnv('S3_FORCE_PATH_STYLE', false),
    keyPrefix: process.env.S3_KEY_PREFIX ?? '',
    // 0: downloads stream through this service; N: after its checks, /downloads/{token} redirects
    // to a GetObject URL presigned for N seconds (docs/decisions.md, "Presigned redirects").
    redirectSeconds,
  };
}

/** An http(s) base URL without query or fragment, trailing slashes dropped; a malformed value stops the start. */
export function baseUrlEnv(name: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`${name} must be an http:// or https:// URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`${name} must be an http:// or https:// URL`);
  if (url.search || url.hash) throw new Error(`${name} must not carry a query or a fragment`);
  return url.href.replace(/\/+$/, '');
}

/** A secret's variable: unset (a generated one in DATA_DIR outside production), or at least 32 characters. */
function secretEnv(name: string): string | undefined {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return undefined;
  if (raw.length < 32) throw new Error(`${name} must be at least 32 characters (e.g. openssl rand -base64 32)`);
  return raw;
}

export const config = {
  // NODE_ENV=production: nothing is generated or derived that a deployment must decide
  // (src/production-settings.ts refuses the start without it).
  production: process.env.NODE_ENV === 'production',
  port: intEnv('PORT', 3000),
  host: process.env.HOST ?? '127.0.0.1',
  dataDir: path.resolve(process.env.DATA_DIR ?? '.data'),
  // The embedded PostgreSQL (no DATABASE_URL): its port (0: a free one) and connection slots.
  embeddedPostgres: {
    port: intEnv('EMBEDDED_POSTGRES_PORT', 0),
    maxConnections: intEnv('EMBEDDED_POSTGRES_MAX_CONNECTIONS', 100),
  },
  logLevel: process.env.LOG_LEVEL ?? 'info',
  rateLimit: {
    points: intEnv('RATE_LIMIT_POINTS', 600),
    durationSeconds: intEnv('RATE_LIMIT_WINDOW_SECONDS', 60),
    blockSeconds: intEnv('RATE_LIMIT_COOLDOWN_SECONDS', 10),
    // Processes sharing one Redis share a budget only under the same prefix.
    keyPrefix: process.env.RATE_LIMIT_KEY_PREFIX || 'edge',
  },
  // A body is refused (413) as soon as it passes this many bytes, before it is buffered whole.
  maxBodyBytes: intEnv('MAX_BODY_BYTES', 1_048_576),
  redisUrl: process.env.REDIS_URL || undefined,
  // Which peers may name the client in x-forwarded-for (src/http/client-address.ts): otherwise
  // anyone could pick their own rate-limit bucket with a forged header.
  trustedProxies: trustedProxiesFromEnv(process.env.TRUST_PROXY),
  // Where the links this service hands out point (download URLs, payment-method pages); unset: the
  // origin the request that asked for the link came to.
  publicBaseUrl: baseUrlEnv('PUBLIC_BASE_URL'),
  // The buyer portal GET /v0/portal/url links into; unset: <publicBaseUrl or origin>/portal.
  portalBaseUrl: baseUrlEnv('PORTAL_BASE_URL'),
  temporal: {
    // Unset: a Temporal dev server is started (or reused) with its history under DATA_DIR.
    address: process.env.TEMPORAL_ADDRESS || undefined,
    namespace: process.env.TEMPORAL_NAMESPACE || 'default',
    taskQueue: process.env.TEMPORAL_TASK_QUEUE || 'commerce',
    // TLS is on with any of these; a client certificate and key together give mutual TLS.
    tls: process.env.TEMPORAL_TLS === 'true',
    tlsCertPath: process.env.TEMPORAL_TLS_CERT_PATH || undefined,
    tlsKeyPath: process.env.TEMPORAL_TLS_KEY_PATH || undefined,
    tlsCaPath: process.env.TEMPORAL_TLS_CA_PATH || undefined,
    tlsServerName: process.env.TEMPORAL_TLS_SERVER_NAME || undefined,
    apiKey: process.env.TEMPORAL_API_KEY || undefined,
    // Ports of the dev server; 0 picks free ones.
    devPort: intEnv('TEMPORAL_DEV_PORT', 0),
    uiPort: intEnv('TEMPORAL_UI_PORT', 0),
    // false: this process serves HTTP only and `npm run worker` processes run the workflows.
    workerInProcess: process.env.WORKER_IN_PROCESS !== 'false',
  },
  webhooks: {
    // The spec's delivery rules (25 s to answer, retries about 5 minutes apart); tests shorten both.
    timeoutMs: intEnv('WEBHOOK_TIMEOUT_MS', 25_000),
    retryIntervalMs: intEnv('WEBHOOK_RETRY_INTERVAL_MS', 300_000),
    // How often each worker process looks for events not yet handed to delivery.
    dispatchIntervalMs: intEnv('EVENT_DISPATCH_INTERVAL_MS', 250),
    // false: this worker process leaves the outbox to the others. Deliveries start on the
    // dispatching process's task queue, so a pool on a task queue of its own (another app's
    // workflows, a canary) must not take them.
    dispatchEvents: process.env.EVENT_DISPATCH !== 'false',
  },
  // License keys are stored encrypted under this secret (src/delivery/key-vault.ts).
  licenseKeySecret: secretEnv('LICENSE_KEY_SECRET'),
  // Public license key validations (validate, activate, deactivate) per workspace and minute, and
  // per client address of a workspace and minute.
  licenseKeyValidationsPerMinute: intEnv('LICENSE_KEY_VALIDATIONS_PER_MINUTE', 600),
  licenseKeyValidationsPerAddressPerMinute: intEnv('LICENSE_KEY_VALIDATIONS_PER_ADDRESS_PER_MINUTE', 60),
  // Signs the subscriptions list's cursors (src/subscriptions/cursor.ts).
  cursorSecret: secretEnv('CURSOR_SECRET'),
  // Signs the buyer portal's form (CSRF) tokens (src/portal/tokens.ts).
  portalSecret: secretEnv('PORTAL_SECRET'),
  downloads: {
    // Signs the download URLs this service serves (src/delivery/download-links.ts).
    urlSecret: secretEnv('DOWNLOAD_URL_SECRET'),
    // The largest file an upload may stream in (413 past it).
    maxFileBytes: intEnv('DOWNLOAD_MAX_FILE_BYTES', 1_073_741_824),
    // Download URLs minted per workspace and minute (the contract's 60).
    urlsPerMinute: intEnv('DOWNLOAD_URLS_PER_MINUTE', 60),
    // Unset: files live under DATA_DIR/files.
    s3: s3Env(),
  },
};
