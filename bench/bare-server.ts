// The baseline for bench/products-list.ts and bench/orders-list.ts: `GET /v0/products/list?take=20`
// and `GET /v0/orders/list?take=20&statuses=…&currency=…` (bench/bare-orders.ts) as a bare
// node:http handler over a pg pool. It runs the statements Prisma sends for that request (the key
// lookup with its workspace, then the page) and writes the same bytes as the full stack.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { listOrders } from './bare-orders.js';

// Copied from PostgreSQL's statement log of the full stack serving the same request.
const KEY_SQL = `SELECT "t0"."id", "t0"."workspaceId", "t0"."mode"::text, "t0"."publicKey", "t0"."secretKeyHash", "t0"."createdAt", "t0"."revokedAt", "ApiKey_workspace"."__prisma_data__" AS "workspace" FROM "public"."ApiKey" AS "t0" LEFT JOIN LATERAL (SELECT JSONB_BUILD_OBJECT('id', "t1"."id", 'name', "t1"."name", 'testMode', "t1"."testMode", 'offline', "t1"."offline", 'productLimit', "t1"."productLimit", 'portalEnabled', "t1"."portalEnabled", 'refundsEnabled', "t1"."refundsEnabled", 'embeddedPaymentMethodUpdate', "t1"."embeddedPaymentMethodUpdate", 'customSubscriptionManagementUrl', "t1"."customSubscriptionManagementUrl", 'contactEmail', "t1"."contactEmail", 'createdAt', "t1"."createdAt", 'updatedAt', "t1"."updatedAt") AS "__prisma_data__" FROM "public"."Workspace" AS "t1" WHERE "t0"."workspaceId" = "t1"."id" LIMIT $1) AS "ApiKey_workspace" ON true WHERE ("t0"."publicKey" = $2 AND 1=1) LIMIT $3`;
const LIST_SQL = `SELECT "t0"."id", "t0"."workspaceId", "t0"."livemode", "t0"."projectId", "t0"."type"::text, "t0"."slug", "t0"."internalId", "t0"."name", "t0"."description", "t0"."developer", "t0"."publisher", "t0"."pegiRating", "t0"."releaseDate", "t0"."systems", "t0"."genres", "t0"."tags", "t0"."media", "t0"."status"::text, "t0"."customFields", "t0"."lowestPrice", "t0"."createdAt", "t0"."updatedAt", "t0"."archivedAt" FROM "public"."Product" AS "t0" WHERE ("t0"."workspaceId" = $1 AND "t0"."livemode" = $2 AND "t0"."archivedAt" IS NULL) ORDER BY "t0"."createdAt" DESC, "t0"."id" DESC LIMIT $3 OFFSET $4`;

interface ProductRow {
  id: string;
  projectId: string;
  type: string;
  slug: string;
  internalId: string | null;
  name: string;
  description: string;
  developer: string | null;
  publisher: string | null;
  pegiRating: string;
  releaseDate: string | null;
  systems: string[] | null;
  genres: string[] | null;
  tags: string[] | null;
  media: unknown;
  status: string;
  customFields: unknown;
  createdAt: Date;
  updatedAt: Date;
}

const unixSeconds = (date: Date) => Math.floor(date.getTime() / 1000);

// Keys in the order the GraphQL response has them (the schema is sorted lexicographically).
const productJson = (p: ProductRow) => ({
  createdAt: unixSeconds(p.createdAt),
  customFields: p.customFields,
  description: p.description,
  developer: p.developer,
  genres: p.genres,
  id: p.id,
  internalId: p.internalId,
  media: p.media,
  name: p.name,
  object: 'product',
  pegiRating: p.pegiRating,
  projectId: p.projectId,
  publisher: p.publisher,
  releaseDate: p.releaseDate,
  slug: p.slug,
  status: p.status,
  systems: p.systems,
  tags: p.tags,
  type: p.type,
  updatedAt: unixSeconds(p.updatedAt),
});

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.DATABASE_POOL_SIZE ?? 10) });

function send(res: http.ServerResponse, status: number, body: string) {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

async function handle(req: http.IncomingMessage, res: http.ServerResponse) {
  const url = new URL(req.url ?? '/', 'http://localhost');
  if (url.pathname !== '/v0/products/list' && url.pathname !== '/v0/orders/list') return send(res, 404, '{"status":"error","error":{"message":"Not found"}}');
  const publicKey = req.headers['x-svc-public-key'];
  const { rows: keys } = await pool.query(KEY_SQL, [1, publicKey, 1]);
  const key = keys[0];
  if (!key || key.revokedAt || key.workspace.offline || (key.mode === 'test' && !key.workspace.testMode)) {
    return send(res, 401, '{"status":"error","error":{"message":"Invalid or revoked public key"}}');
  }
  if (url.pathname === '/v0/orders/list') return send(res, 200, await listOrders(pool, key, url.searchParams));
  const take = Math.min(100, Math.max(1, Number(url.searchParams.get('take') ?? 20)));
  const { rows } = await pool.query<ProductRow>(LIST_SQL, [key.workspaceId, key.mode === 'live', take, 0]);
  send(res, 200, JSON.stringify({ status: 'success', data: { count: null, products: rows.map(productJson) } }));
}

const server = http.createServer((req, res) => {
  handle(req, res).catch((error: unknown) => {
    console.error(error);
    send(res, 500, '{"status":"error","error":{"message":"Internal server error"}}');
  });
});
server.keepAliveTimeout = 65_000;
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  console.log(`Bare handler listening on http://127.0.0.1:${port}`);
});
process.on('SIGTERM', () => {
  server.close();
  server.closeIdleConnections();
  void pool.end().then(() => process.exit(0));
});
