// The checkout's reads of what it sells, each one statement of our own where Prisma took two:
// the selling element with its workspace and offers, and the offers locked for an order.
import { Prisma, type Offer, type PrismaClient, type Product, type Workspace } from '../generated/prisma/client.js';
import type { CheckoutElementStatus } from '../generated/prisma/enums.js';
import { NotFound } from '../core/errors.js';
import type { Scope } from '../core/scope.js';

type Tx = Prisma.TransactionClient;

export type ElementOffer = Offer & { product: Pick<Product, 'name' | 'archivedAt' | 'type'> };

// An offer and its product's name, archivedAt and type (ElementOffer) in SQL of our own: each read
// is one statement instead of Prisma's two (the element's with its workspace, the locked offers').
// Every column of the offer as Prisma reads it (enums as text), the product's flat.
const OFFER_COLUMNS = Prisma.sql`o.id, o."workspaceId", o.livemode, o."productId", o."variantId", o."internalId", o.name, o.description, o.price, o."originalPrice", o.currency,
  o."recurringInterval"::text AS "recurringInterval", o."recurringIntervalCount", o."trialInterval"::text AS "trialInterval", o."trialIntervalCount", o."limit", o."soldItems",
  o.status::text AS status, o.region, o.platform, o.gtin, o."warningMessage", o."createdAt", o."updatedAt", o."archivedAt",
  p.name AS "productName", p."archivedAt" AS "productArchivedAt", p.type::text AS "productType"`;
type OfferRow = Offer & { productName: string; productArchivedAt: Date | null; productType: Product['type'] };

const elementOffer = ({ productName, productArchivedAt, productType, ...offer }: OfferRow): ElementOffer => ({
  ...offer,
  product: { name: productName, archivedAt: productArchivedAt, type: productType },
});

export type TaxSettings = Pick<Workspace, 'pricesIncludeTax' | 'taxRegistrations' | 'noTaxData'>;

/** The element and its workspace (null: none), in JSON: what the checks below read, strings and booleans only. */
interface SaleElement {
  id: string;
  workspaceId: string;
  livemode: boolean;
  status: CheckoutElementStatus;
  archived: boolean;
  workspace: (TaxSettings & { offline: boolean; testMode: boolean }) | null;
}

/** The element a buyer may buy from: live (not archived), ACTIVE, of a workspace that sells in that mode; 404 otherwise. */
export async function sellingElement(db: PrismaClient | Tx, checkoutElementId: string) {
  // One row per offer of the element in its position order (one without offer columns when it has none), each with the element.
  const rows = await db.$queryRaw<({ element: SaleElement } & (OfferRow | { id: null }))[]>`
    SELECT jsonb_build_object('id', e.id, 'workspaceId', e."workspaceId", 'livemode', e.livemode, 'status', e.status, 'archived', e."archivedAt" IS NOT NULL,
        'workspace', CASE WHEN w.id IS NOT NULL THEN jsonb_build_object('offline', w.offline, 'testMode', w."testMode", 'pricesIncludeTax', w."pricesIncludeTax",
          'taxRegistrations', w."taxRegistrations", 'noTaxData', w."noTaxData") END) AS element,
      ${OFFER_COLUMNS}
    FROM "CheckoutElement" e
    LEFT JOIN "Workspace" w ON w.id = e."workspaceId"
    LEFT JOIN ("CheckoutElementOffer" eo JOIN "Offer" o ON o.id = eo."offerId" JOIN "Product" p ON p.id = o."productId") ON eo."checkoutElementId" = e.id
    WHERE e.id = ${checkoutElementId}::uuid
    ORDER BY eo.position`;
  const element = rows[0]?.element;
  if (!element || element.archived || element.status !== 'ACTIVE') throw new NotFound('Checkout element');
  const { workspace } = element;
  // An offline workspace, or test mode not set up, cannot sell: the element is as good as absent.
  if (!workspace || workspace.offline || (!element.livemode && !workspace.testMode)) throw new NotFound('Checkout element');
  const scope: Scope = { workspaceId: element.workspaceId, livemode: element.livemode };
  const offers = rows.flatMap(({ element: _element, ...offer }) => (offer.id === null ? [] : [elementOffer(offer)]));
  return { element, scope, offers, workspace };
}

/**
 * The element's offers, locked FOR UPDATE in id order (every checkout and release locks in this
 * order), as the lock leaves them. Only the offers are locked (OF o), in the ORDER BY's order; the
 * products are read as the statement began (an archived product archives its offers, whose lock
 * this waits for).
 */
export async function lockOffers(tx: Tx, offerIds: readonly string[]): Promise<Map<string, ElementOffer>> {
  const ids = [...offerIds].sort();
  const rows = await tx.$queryRaw<OfferRow[]>`
    SELECT ${OFFER_COLUMNS} FROM "Offer" o JOIN "Product" p ON p.id = o."productId" WHERE o.id = ANY(${ids}::uuid[]) ORDER BY o.id FOR UPDATE OF o`;
  return new Map(rows.map((row) => [row.id, elementOffer(row)]));
}
