// 100,000 orders for bench/orders-list.ts, written with set-based SQL (seconds, not 100,000 API
// calls), shaped as src/orders/service.ts createOrder writes them: the order with its items (in
// cart order), `itemCustomFields` (one object per item, {} for an item without), its first
// payment (sequence 1, numbered as the order), `lastPaymentId`, numbers in the format of
// src/orders/numbers.ts (9 Crockford base32 characters of the creation time in ms, 7 random), the
// platform fee of src/orders/fee.ts (default rule, 5% + 50), UUIDv7 ids from the creation time;
// a subscription for each SUBSCRIPTION order. Left out: the outbox's order_created events and the
// payments' charges, which no list reads.
//
// The spread: over the last 365 days, denser towards now; statuses PAID 70%, PENDING 5%, FAILED
// 8%, CANCELLED 4%, EXPIRED 5%, REFUNDED 5%, PARTIALLY_REFUNDED 3%; currencies USD 55%, EUR 25%,
// GBP 10%, CAD, AUD, PLN, JPY; 14 countries (some orders without); 20,000 buyers (most with
// billing details), a few of them with many orders; 1 to 3 items of 40 products, a third of them with custom fields (steamId,
// discord + region); 5 checkout elements; 8% subscription starts, 3% free claims; 1 in 200 paid
// orders disputed; 10% of everything in test mode.
import { sql } from '../test/support/database.js';

export const ORDERS = Number(process.env.BENCH_ORDERS ?? 100_000);
const USERS = 20_000;
const PRODUCTS = 40;

export interface SeedWorkspace {
  workspaceId: string;
  projectId: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** One script on one connection (its temporary functions and tables live as long as it). */
export async function seedOrders(url: string, ws: SeedWorkspace) {
  if (!UUID.test(ws.workspaceId) || !UUID.test(ws.projectId)) throw new Error('workspace and project ids must be UUIDs');
  const W = `'${ws.workspaceId}'::uuid`;
  await sql(
    url,
    `
SELECT setseed(0.42);

-- UUIDv7 (what Prisma's uuid(7) writes) for a given time: 48 bits of milliseconds, version 7, random.
CREATE FUNCTION pg_temp.uuid7(at timestamptz) RETURNS uuid LANGUAGE sql VOLATILE AS $$
  SELECT encode(set_byte(overlay(uuid_send(gen_random_uuid()) PLACING substring(int8send(floor(extract(epoch FROM at) * 1000)::bigint) FROM 3) FROM 1 FOR 6),
                         6, (get_byte(uuid_send(gen_random_uuid()), 6) & 15) | 112), 'hex')::uuid
$$;
-- src/orders/numbers.ts newOrderNumber: 9 characters of the time in ms, 7 random, Crockford base32.
CREATE FUNCTION pg_temp.order_number(at timestamptz) RETURNS text LANGUAGE sql VOLATILE AS $$
  SELECT (SELECT string_agg(substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', (((floor(extract(epoch FROM at) * 1000)::bigint) >> (5 * (8 - k))) & 31)::int + 1, 1), '' ORDER BY k)
            FROM generate_series(0, 8) AS k)
      || (SELECT string_agg(substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', 1 + floor(random() * 32)::int, 1), '') FROM generate_series(1, 7))
$$;
-- src/orders/fee.ts with the default rule: 5% (half a unit up) + 50, never above the value, 0 when free.
CREATE FUNCTION pg_temp.fee(value int) RETURNS int LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN value <= 0 THEN 0 ELSE least(value, ((value::bigint * 500 + 5000) / 10000)::int + 50) END
$$;

INSERT INTO "Product" (id, "workspaceId", livemode, "projectId", type, slug, name, systems, genres, tags, status, "createdAt", "updatedAt")
SELECT pg_temp.uuid7(now() - interval '400 days'), ${W}, m.live, '${ws.projectId}'::uuid,
       (ARRAY['Game','SoftwareKey','DigitalDownload','GiftCard']::"ProductType"[])[1 + p % 4],
       'product-' || p, 'Product ' || p, ARRAY[]::text[], ARRAY[]::text[], ARRAY[]::text[], 'ACTIVE', now() - interval '400 days', now() - interval '400 days'
FROM generate_series(0, ${PRODUCTS - 1}) AS p, (VALUES (true), (false)) AS m(live);

CREATE TEMP TABLE currencies (code text PRIMARY KEY, factor numeric) ON COMMIT PRESERVE ROWS;
INSERT INTO currencies VALUES ('USD', 1), ('EUR', 0.9), ('GBP', 0.8), ('CAD', 1.4), ('AUD', 1.5), ('PLN', 4), ('JPY', 1.5);

-- One offer per product and currency; JPY has no minor unit (factor 1.5 on a price in cents ~ 150 yen a dollar).
CREATE TEMP TABLE offers AS
SELECT pg_temp.uuid7(now() - interval '400 days') AS id, pr.id AS product_id, pr.livemode, (regexp_match(pr.slug, '[0-9]+$'))[1]::int AS p, c.code AS currency,
       (round((499 + ((regexp_match(pr.slug, '[0-9]+$'))[1]::int * 373) % 5500) * c.factor / 100.0) * 100 - 1)::int AS price
FROM "Product" pr, currencies c WHERE pr."workspaceId" = ${W};
INSERT INTO "Offer" (id, "workspaceId", livemode, "productId", name, price, currency, status, "createdAt", "updatedAt")
SELECT id, ${W}, livemode, product_id, 'Offer ' || p || ' ' || currency, price, currency, 'ACTIVE', now() - interval '400 days', now() - interval '400 days' FROM offers;

INSERT INTO "CheckoutElement" (id, "workspaceId", livemode, name, status, "createdAt", "updatedAt")
SELECT pg_temp.uuid7(now() - interval '380 days'), ${W}, m.live, 'Store ' || e, 'ACTIVE', now() - interval '380 days', now() - interval '380 days'
FROM generate_series(1, 5) AS e, (VALUES (true), (false)) AS m(live);
CREATE TEMP TABLE elements AS SELECT id, livemode, row_number() OVER (PARTITION BY livemode ORDER BY id) - 1 AS k FROM "CheckoutElement" WHERE "workspaceId" = ${W};

CREATE TEMP TABLE buyers AS
SELECT u, u % 10 <> 0 AS livemode, now() - interval '365 days' * random() AS created_at FROM generate_series(0, ${USERS - 1}) AS u;
ALTER TABLE buyers ADD COLUMN id uuid;
UPDATE buyers SET id = pg_temp.uuid7(created_at);
INSERT INTO "User" (id, "workspaceId", livemode, email, "emailNormalized", username, "billingDetails", "createdAt", "updatedAt")
SELECT id, ${W}, livemode, 'Buyer' || u || '@example.com', 'buyer' || u || '@example.com', CASE WHEN u % 3 = 0 THEN 'gamer' || u END,
       CASE WHEN u % 5 < 3 THEN jsonb_build_object('countryCode', (ARRAY['US','DE','GB','FR','CA'])[1 + u % 5], 'postalCode', lpad((u * 37 % 99999)::text, 5, '0')) END,
       created_at, created_at FROM buyers;
CREATE TEMP TABLE buyer_index AS SELECT id, livemode, row_number() OVER (PARTITION BY livemode ORDER BY u) - 1 AS k FROM buyers;
CREATE INDEX ON buyer_index (livemode, k);

-- One row per order with every random choice made once.
CREATE TEMP TABLE seed AS
SELECT i, live AS livemode, created_at, pg_temp.uuid7(created_at) AS order_id, pg_temp.uuid7(created_at) AS payment_id, pg_temp.uuid7(created_at) AS subscription_id, pg_temp.order_number(created_at) AS number,
       CASE WHEN r_type < 0.03 THEN 'FREE' WHEN r_type < 0.11 THEN 'SUBSCRIPTION' ELSE 'ONE_TIME' END AS type,
       CASE WHEN r_type < 0.03 THEN 'PAID'
            WHEN r_status < 0.70 THEN 'PAID' WHEN r_status < 0.75 THEN 'PENDING' WHEN r_status < 0.83 THEN 'FAILED' WHEN r_status < 0.87 THEN 'CANCELLED'
            WHEN r_status < 0.92 THEN 'EXPIRED' WHEN r_status < 0.97 THEN 'REFUNDED' ELSE 'PARTIALLY_REFUNDED' END AS status,
       CASE WHEN r_currency < 0.55 THEN 'USD' WHEN r_currency < 0.80 THEN 'EUR' WHEN r_currency < 0.90 THEN 'GBP' WHEN r_currency < 0.94 THEN 'CAD'
            WHEN r_currency < 0.97 THEN 'AUD' WHEN r_currency < 0.99 THEN 'PLN' ELSE 'JPY' END AS currency,
       (ARRAY['US','US','US','US','DE','DE','GB','FR','CA','AU','NL','PL','JP','BR','SE',NULL])[1 + floor(r_country * 16)::int] AS country,
       -- Squared: a few buyers have many orders, most a handful.
       floor(power(r_user, 2) * ${USERS / 10} * (CASE WHEN live THEN 9 ELSE 1 END))::int AS buyer,
       CASE WHEN r_items < 0.80 THEN 1 WHEN r_items < 0.95 THEN 2 ELSE 3 END AS items,
       CASE WHEN r_checkout < 0.9 THEN floor(r_checkout / 0.18)::int END AS element,
       CASE WHEN r_method < 0.85 THEN 'card' WHEN r_method < 0.95 THEN 'paypal' ELSE 'manual' END AS method,
       r_dispute < 0.005 AS disputed
FROM (SELECT i, random() >= 0.1 AS live, now() - interval '365 days' * power(random(), 1.3) - make_interval(secs => random() * 60) AS created_at,
             random() AS r_type, random() AS r_status, random() AS r_currency, random() AS r_country, random() AS r_user, random() AS r_items,
             random() AS r_checkout, random() AS r_method, random() AS r_dispute
      FROM generate_series(1, ${ORDERS}) AS i) AS r;

CREATE TEMP TABLE seed_items AS
SELECT s.i, s.order_id, k AS position, o.id AS offer_id, o.product_id, o.p,
       CASE WHEN s.type = 'FREE' THEN 0 ELSE o.price END AS unit_price,
       CASE WHEN random() < 0.9 THEN 1 ELSE 2 + floor(random() * 2)::int END AS quantity,
       CASE WHEN o.p % 6 = 0 THEN jsonb_build_object('steamId', '7656119' || lpad((s.i * 7919 % 10000000000)::text, 10, '0'))
            WHEN o.p % 6 = 3 THEN jsonb_build_object('discord', 'player' || (s.i % 5000), 'region', (ARRAY['EU','NA','ASIA'])[1 + s.i % 3]) END AS custom_fields
FROM seed s CROSS JOIN LATERAL generate_series(0, s.items - 1) AS k
JOIN offers o ON o.livemode = s.livemode AND o.currency = s.currency AND o.p = (s.i * 7 + k * 13) % ${PRODUCTS};

CREATE TEMP TABLE seed_totals AS
SELECT order_id, sum(unit_price * quantity)::int AS value, sum(quantity)::int AS total_items,
       jsonb_agg(coalesce(custom_fields, '{}'::jsonb) ORDER BY position) AS item_custom_fields
FROM seed_items GROUP BY order_id;

INSERT INTO "Subscription" (id, "workspaceId", livemode, number, status, "userId", currency, amount, "recurringInterval", "recurringIntervalCount", processor, "methodType",
                            "currentPeriodStart", "currentPeriodEnd", "createdAt", "updatedAt")
SELECT s.subscription_id, ${W}, s.livemode, s.number,
       (CASE s.status WHEN 'PAID' THEN 'active' WHEN 'PENDING' THEN 'incomplete' WHEN 'CANCELLED' THEN 'cancelled' WHEN 'REFUNDED' THEN 'cancelled'
                      WHEN 'PARTIALLY_REFUNDED' THEN 'active' ELSE 'incomplete_expired' END)::"SubscriptionStatus",
       b.id, s.currency, t.value, 'month', 1, 'sandbox', 'card',
       CASE WHEN s.status IN ('PAID', 'PARTIALLY_REFUNDED') THEN s.created_at END, CASE WHEN s.status IN ('PAID', 'PARTIALLY_REFUNDED') THEN s.created_at + interval '1 month' END,
       s.created_at, s.created_at
FROM seed s JOIN seed_totals t USING (order_id) JOIN buyer_index b ON b.livemode = s.livemode AND b.k = s.buyer WHERE s.type = 'SUBSCRIPTION';

INSERT INTO "Order" (id, "workspaceId", livemode, number, type, status, "userId", currency, value, tax, fee, "discountAmount", "totalItems", country, "checkoutId",
                     "subscriptionId", disputed, "itemCustomFields", "paidAt", "cancelledAt", "createdAt", "updatedAt")
SELECT s.order_id, ${W}, s.livemode, s.number, s.type::"OrderType", s.status::"OrderStatus", b.id, s.currency, t.value, 0, pg_temp.fee(t.value), 0, t.total_items, s.country, e.id,
       CASE WHEN s.type = 'SUBSCRIPTION' THEN s.subscription_id END, s.disputed AND s.status = 'PAID', t.item_custom_fields,
       CASE WHEN s.status IN ('PAID', 'CANCELLED', 'REFUNDED', 'PARTIALLY_REFUNDED') THEN s.created_at + interval '3 seconds' END,
       CASE WHEN s.status = 'CANCELLED' THEN s.created_at + interval '2 days' END,
       s.created_at, s.created_at + CASE WHEN s.status = 'PENDING' THEN interval '0' ELSE interval '3 seconds' END
FROM seed s JOIN seed_totals t USING (order_id) JOIN buyer_index b ON b.livemode = s.livemode AND b.k = s.buyer
LEFT JOIN elements e ON e.livemode = s.livemode AND e.k = s.element;

INSERT INTO "OrderItem" (id, "orderId", "productId", "offerId", position, quantity, "unitPrice", discount, tax, "customFields", "createdAt")
SELECT pg_temp.uuid7(s.created_at), i.order_id, i.product_id, i.offer_id, i.position, i.quantity, i.unit_price, 0, 0, i.custom_fields, s.created_at
FROM seed_items i JOIN seed s USING (order_id);

-- A cancelled order was paid (cancel makes no refund); a free claim has no processor.
INSERT INTO "Payment" (id, "workspaceId", livemode, "orderId", sequence, number, status, amount, tax, fee, currency, processor, "methodType", "processorChargeId",
                       "failureCode", "failureMessage", "refundedAmount", disputed, "expiresAt", "paidAt", "userId", "subscriptionId", "createdAt", "updatedAt")
SELECT s.payment_id, ${W}, s.livemode, s.order_id, 1, s.number,
       (CASE s.status WHEN 'CANCELLED' THEN 'PAID' ELSE s.status END)::"PaymentStatus", t.value, 0, pg_temp.fee(t.value), s.currency,
       CASE WHEN s.type <> 'FREE' THEN 'sandbox'::"PaymentProcessor" END,
       CASE WHEN s.type = 'FREE' THEN NULL WHEN s.type = 'SUBSCRIPTION' THEN 'card'::"PaymentMethodType" ELSE s.method::"PaymentMethodType" END,
       CASE WHEN s.type <> 'FREE' THEN 'ch_sbx_' || substr(md5(s.order_id::text), 1, 24) END,
       CASE WHEN s.status = 'FAILED' THEN (ARRAY['card_declined','insufficient_funds','expired_card'])[1 + s.i % 3] END,
       CASE WHEN s.status = 'FAILED' THEN (ARRAY['Your card was declined.','Your card has insufficient funds.','Your card has expired.'])[1 + s.i % 3] END,
       CASE s.status WHEN 'REFUNDED' THEN t.value WHEN 'PARTIALLY_REFUNDED' THEN t.value / 2 ELSE 0 END,
       s.disputed AND s.status = 'PAID',
       CASE WHEN s.type <> 'FREE' THEN s.created_at + interval '1 day' END,
       CASE WHEN s.status IN ('PAID', 'CANCELLED', 'REFUNDED', 'PARTIALLY_REFUNDED') THEN s.created_at + interval '3 seconds' END,
       b.id, CASE WHEN s.type = 'SUBSCRIPTION' THEN s.subscription_id END, s.created_at, s.created_at + interval '3 seconds'
FROM seed s JOIN seed_totals t USING (order_id) JOIN buyer_index b ON b.livemode = s.livemode AND b.k = s.buyer;

UPDATE "Order" o SET "lastPaymentId" = s.payment_id FROM seed s WHERE o.id = s.order_id;
`,
  );
  // Outside the script's transaction: the planner's statistics and visibility map, as a table
  // that has lived a while would have them (the UPDATE above left a dead version of every order).
  for (const table of ['"Order"', '"OrderItem"', '"Payment"', '"User"', '"Subscription"']) await sql(url, `VACUUM ANALYZE ${table}`);
}
