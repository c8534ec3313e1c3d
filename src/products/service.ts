import { randomBytes } from 'node:crypto';
import { Prisma, type PrismaClient, type Product, type ProductStatus, type ProductType } from '../generated/prisma/client.js';
import { isUniqueViolation, type Db } from '../db/client.js';
import { NoFreeValue, NotFound, ProductLimitReached, ValidationFailed } from '../core/errors.js';
import { claimArchive } from '../core/archive.js';
import { reserveSlot } from '../core/slots.js';
import { recordEvent } from '../events/event-service.js';
import { inScope, type Principal, type Scope } from '../core/scope.js';
import { archivedWhere, direction, offsetPage, termOrIdSql, type OffsetListArgs } from '../core/list.js';
import { notifyProductArchived } from './hooks.js';
import { productEventData } from './events.js';

export const PEGI_RATINGS = ['NONE', 'PEGI_3', 'PEGI_7', 'PEGI_12', 'PEGI_16', 'PEGI_18'] as const;
/** Fields that only describe games: the product type decides whether a body may carry them. */
const GAME_FIELDS = ['developer', 'publisher', 'pegiRating', 'releaseDate', 'systems', 'genres'] as const;
/** Fields the resource never shows as null: null is refused, not read as "clear". */
const NON_NULL_FIELDS = ['name', 'description', 'pegiRating', 'status', 'tags', 'media'] as const;

export interface ProductFields {
  name?: string | null;
  description?: string | null;
  internalId?: string | null;
  developer?: string | null;
  publisher?: string | null;
  pegiRating?: string | null;
  releaseDate?: string | null;
  systems?: string[] | null;
  genres?: string[] | null;
  tags?: string[] | null;
  media?: unknown;
  status?: ProductStatus | null;
  customFields?: unknown;
}

export interface ProductListArgs extends OffsetListArgs {
  ids?: string[] | null;
  statuses?: ProductStatus[] | null;
  termOrId?: string | null;
  tagName?: string | null;
  genres?: string[] | null;
  systems?: string[] | null;
  types?: ProductType[] | null;
  projectId?: string | null;
  offers?: string[] | null;
  orderBy?: 'createdAt' | 'name' | 'price' | null;
}

type Query = { select?: Prisma.ProductSelect; include?: Prisma.ProductInclude };

// The list in SQL of our own: the busiest read of the API (`npm run bench`), where Prisma's
// findMany spent CPU in its client on every request (with the key's read, 1.41 to 1.11 CPU ms per
// request; docs/benchmarks.md). Read as Prisma reads them: enums as text, a NULL list as empty.
const PRODUCT_COLUMNS = Prisma.sql`p.id, p."workspaceId", p.livemode, p."projectId", p.type::text AS type, p.slug, p."internalId", p.name, p.description, p.developer, p.publisher,
  p."pegiRating", p."releaseDate", COALESCE(p.systems, '{}') AS systems, COALESCE(p.genres, '{}') AS genres, COALESCE(p.tags, '{}') AS tags, p.media, p.status::text AS status, p."customFields", p."lowestPrice", p."createdAt", p."updatedAt", p."archivedAt"`;

/** The list's filters as a WHERE clause over `"Product" p`. */
function productListWhere(scope: Scope, args: ProductListArgs): Prisma.Sql {
  const and = [Prisma.sql`p."workspaceId" = ${scope.workspaceId}::uuid`, Prisma.sql`p.livemode = ${scope.livemode}`];
  const archived = archivedWhere(args).archivedAt;
  if (archived === null) and.push(Prisma.sql`p."archivedAt" IS NULL`);
  else if (archived) and.push(Prisma.sql`p."archivedAt" IS NOT NULL`);
  if (args.ids) and.push(Prisma.sql`p.id = ANY(${args.ids}::uuid[])`);
  if (args.statuses) and.push(Prisma.sql`p.status::text = ANY(${args.statuses}::text[])`);
  if (args.types) and.push(Prisma.sql`p.type::text = ANY(${args.types}::text[])`);
  if (args.projectId) and.push(Prisma.sql`p."projectId" = ${args.projectId}::uuid`);
  if (args.tagName) and.push(Prisma.sql`${args.tagName} = ANY(p.tags)`);
  if (args.genres) and.push(Prisma.sql`p.genres && ${args.genres}::text[]`);
  if (args.systems) and.push(Prisma.sql`p.systems && ${args.systems}::text[]`);
  if (args.offers) and.push(Prisma.sql`EXISTS (SELECT 1 FROM "Offer" o WHERE o."productId" = p.id AND o.id = ANY(${args.offers}::uuid[]))`);
  if (args.termOrId) and.push(termOrIdSql(args.termOrId, [Prisma.sql`p.name`, Prisma.sql`p.description`], Prisma.sql`p.id`));
  return Prisma.join(and, ' AND ');
}

export async function listProducts(prisma: PrismaClient, scope: Scope, args: ProductListArgs) {
  const { skip, take } = offsetPage(args, 20);
  const where = productListWhere(scope, args);
  const dir = direction(args) === 'asc' ? Prisma.sql`ASC` : Prisma.sql`DESC`;
  const first = args.orderBy === 'name' ? Prisma.sql`p.name ${dir}, ` : args.orderBy === 'price' ? Prisma.sql`p."lowestPrice" ${dir} NULLS LAST, ` : Prisma.empty;
  const [products, count] = await Promise.all([
    prisma.$queryRaw<Product[]>`SELECT ${PRODUCT_COLUMNS} FROM "Product" p WHERE ${where} ORDER BY ${first}p."createdAt" ${dir}, p.id ${dir} LIMIT ${take} OFFSET ${skip}`,
    args.returnCount ? prisma.$queryRaw<{ count: number }[]>`SELECT count(*)::int AS count FROM "Product" p WHERE ${where}`.then(([row]) => row!.count) : null,
  ]);
  return { products, count };
}

/** The live variants (plans) of a product, as its details list them: in their `order`, then oldest first. */
export const liveVariants = {
  where: { archivedAt: null },
  orderBy: [{ order: { sort: 'asc', nulls: 'last' } }, { createdAt: 'asc' }, { id: 'asc' }],
} satisfies Prisma.Product$variantsArgs;

export async function findProduct(prisma: Db, scope: Scope, productId: string, query: Query = {}) {
  const product = await prisma.product.findFirst({ ...query, where: { id: productId, ...inScope(scope), archivedAt: null } });
  if (!product) throw new NotFound('Product');
  return product;
}

function checkTypeFields(type: ProductType, fields: ProductFields) {
  if (type === 'Game') return;
  const present = GAME_FIELDS.filter((name) => fields[name] !== undefined && fields[name] !== null);
  if (present.length) throw new ValidationFailed(`${present.join(', ')} can only be set on Game products (this one is ${type})`);
}

function checkFields(fields: ProductFields) {
  for (const name of NON_NULL_FIELDS) if (fields[name] === null) throw new ValidationFailed(`${name} cannot be null`);
  // Lengths are checked for every input in one place (graphql/input-limits.ts).
  if (fields.name != null && fields.name.trim() === '') throw new ValidationFailed('name must not be empty');
  if (fields.pegiRating != null && !(PEGI_RATINGS as readonly string[]).includes(fields.pegiRating)) {
    throw new ValidationFailed(`pegiRating must be one of ${PEGI_RATINGS.join(', ')}`);
  }
  if (fields.media != null) checkMedia(fields.media);
  if (fields.customFields !== undefined && fields.customFields !== null) {
    if (typeof fields.customFields !== 'object' || Array.isArray(fields.customFields)) {
      throw new ValidationFailed('customFields must be a JSON object');
    }
  }
}

function checkMedia(media: unknown) {
  if (!Array.isArray(media)) throw new ValidationFailed('media must be an array of {url, type} objects');
  media.forEach((item, index) => {
    const entry = item as { url?: unknown; type?: unknown } | null;
    if (!entry || typeof entry !== 'object' || typeof entry.url !== 'string' || !/^https?:\/\/\S+$/.test(entry.url)) {
      throw new ValidationFailed(`media[${index}].url must be an http(s) URL`);
    }
    if (entry.type !== undefined && entry.type !== 'image' && entry.type !== 'video') {
      throw new ValidationFailed(`media[${index}].type must be image or video`);
    }
  });
}

/**
 * Prisma data for the writable fields that were sent; absent fields stay as they are and null
 * clears the nullable ones (checkFields refuses it on the others).
 */
function productData(fields: ProductFields) {
  const data: Prisma.ProductUncheckedUpdateInput = {};
  if (fields.name != null) data.name = fields.name.trim();
  if (fields.description != null) data.description = fields.description;
  if (fields.internalId !== undefined) data.internalId = fields.internalId;
  if (fields.developer !== undefined) data.developer = fields.developer;
  if (fields.publisher !== undefined) data.publisher = fields.publisher;
  if (fields.pegiRating != null) data.pegiRating = fields.pegiRating;
  if (fields.releaseDate !== undefined) data.releaseDate = fields.releaseDate;
  if (fields.systems !== undefined) data.systems = fields.systems ?? [];
  if (fields.genres !== undefined) data.genres = fields.genres ?? [];
  if (fields.tags != null) data.tags = fields.tags;
  if (fields.media != null) data.media = fields.media as Prisma.InputJsonValue;
  if (fields.status != null) data.status = fields.status;
  if (fields.customFields !== undefined) data.customFields = (fields.customFields ?? Prisma.DbNull) as Prisma.InputJsonValue;
  return data;
}

export function slugify(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/, '');
  return slug || 'product';
}

/**
 * Serialises product creation per workspace so two concurrent creates cannot both pass the
 * product limit, then counts the live (unarchived) products of this mode.
 */
function reserveProductSlot(tx: Prisma.TransactionClient, scope: Scope, productLimit: number) {
  return reserveSlot(tx, scope, {
    name: 'products',
    limit: productLimit,
    taken: () => tx.product.count({ where: { ...inScope(scope), archivedAt: null } }),
    full: () => new ProductLimitReached(productLimit),
  });
}

/** Inserts with the wanted slug, or the slug plus a short random suffix when it is taken. */
async function insertWithFreeSlug<T>(baseSlug: string, explicit: boolean, insert: (slug: string) => Promise<T>): Promise<T> {
  for (let attempt = 0; attempt < 5; attempt += 1) {
    const slug = attempt === 0 ? baseSlug : `${baseSlug}-${randomBytes(3).toString('hex')}`;
    try {
      return await insert(slug);
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      if (explicit) throw new ValidationFailed(`slug ${baseSlug} is already used by another product`);
    }
  }
  throw new NoFreeValue('Could not find a free slug; try again');
}

export interface CreateProductInput extends ProductFields {
  name: string;
  projectId: string;
  type: ProductType;
  slug?: string | null;
}

/** Creates a product within the workspace's product limit (the caller's settings). */
export async function createProduct(prisma: PrismaClient, principal: Principal, input: CreateProductInput, query: Query) {
  const scope: Scope = principal;
  checkFields(input);
  checkTypeFields(input.type, input);
  if (input.slug !== undefined && input.slug !== null && !/^[a-z0-9]+(-[a-z0-9]+)*$/.test(input.slug)) {
    throw new ValidationFailed('slug must be lowercase letters and digits separated by single hyphens');
  }
  const project = await prisma.project.findFirst({ where: { id: input.projectId, workspaceId: scope.workspaceId } });
  if (!project) throw new ValidationFailed('projectId does not name a project of this workspace');
  const data = productData(input);
  return insertWithFreeSlug(input.slug ?? slugify(input.name), Boolean(input.slug), (slug) =>
    prisma.$transaction(async (tx) => {
      await reserveProductSlot(tx, scope, principal.settings.productLimit);
      const product = await tx.product.create({
        ...query,
        data: { ...(data as Prisma.ProductUncheckedCreateInput), ...inScope(scope), projectId: project.id, type: input.type, name: input.name.trim(), slug },
      });
      await recordEvent(tx, scope, 'product_created', productEventData(product));
      return product;
    }),
  );
}

export async function updateProduct(prisma: PrismaClient, scope: Scope, productId: string, fields: ProductFields, query: Query) {
  checkFields(fields);
  return prisma.$transaction(async (tx) => {
    const current = await findProduct(tx, scope, productId);
    checkTypeFields(current.type, fields);
    const product = await tx.product.update({ ...query, where: { id: current.id }, data: productData(fields) });
    await recordEvent(tx, scope, 'product_updated', productEventData(product));
    return product;
  });
}

/** Archives the product and its offers together; existing subscriptions are not touched. */
export async function archiveProduct(prisma: PrismaClient, scope: Scope, productId: string) {
  await prisma.$transaction(async (tx) => {
    const now = await claimArchive('Product', (at) =>
      tx.product.updateMany({ where: { id: productId, ...inScope(scope), archivedAt: null }, data: { archivedAt: at, lowestPrice: null } }),
    );
    const product = await tx.product.findUniqueOrThrow({ where: { id: productId } });
    await recordEvent(tx, scope, 'product_archived', productEventData(product));
    // Its offers are archived with it (the offers domain, on this hook).
    await notifyProductArchived(tx, scope, productId, now);
  });
  return { success: true };
}

/** A copy with all live variants, a new id and slug; offers are not copied. */
export async function duplicateProduct(prisma: PrismaClient, principal: Principal, productId: string, query: Query) {
  const scope: Scope = principal;
  const source = await findProduct(prisma, scope, productId, { include: { variants: liveVariants } });
  const { id: _id, createdAt: _c, updatedAt: _u, archivedAt: _a, lowestPrice: _l, slug, variants, ...copy } = source as Product & { variants: Prisma.VariantGetPayload<object>[] };
  // The cut may end on a hyphen, which the slug format does not allow before `-copy`.
  return insertWithFreeSlug(`${slug.slice(0, 55).replace(/-+$/, '')}-copy`, false, (newSlug) =>
    prisma.$transaction(async (tx) => {
      await reserveProductSlot(tx, scope, principal.settings.productLimit);
      const product = await tx.product.create({
        ...query,
        data: {
          ...copy,
          media: copy.media as Prisma.InputJsonValue,
          customFields: (copy.customFields ?? Prisma.DbNull) as Prisma.InputJsonValue,
          status: 'DRAFT',
          slug: newSlug,
          variants: {
            create: variants.map((v) => ({ internalId: v.internalId, name: v.name, description: v.description, order: v.order })),
          },
        },
      });
      await recordEvent(tx, scope, 'product_created', productEventData(product));
      return product;
    }),
  );
}

export interface VariantFields {
  name?: string | null;
  description?: string | null;
  internalId?: string | null;
  order?: number | null;
}

function variantData(fields: VariantFields) {
  if (fields.name !== undefined && (fields.name === null || fields.name.trim() === '')) throw new ValidationFailed('name must not be empty');
  if (fields.description === null) throw new ValidationFailed('description cannot be null');
  const data: Prisma.VariantUncheckedUpdateInput = {};
  if (fields.name) data.name = fields.name.trim();
  if (fields.description != null) data.description = fields.description;
  if (fields.internalId !== undefined) data.internalId = fields.internalId;
  if (fields.order !== undefined) data.order = fields.order;
  return data;
}

export async function addVariant(prisma: PrismaClient, scope: Scope, productId: string, fields: VariantFields & { name: string }) {
  const product = await findProduct(prisma, scope, productId);
  const data = variantData(fields) as Prisma.VariantUncheckedCreateInput;
  return prisma.variant.create({ data: { ...data, name: fields.name.trim(), productId: product.id } });
}

export async function updateVariant(prisma: PrismaClient, scope: Scope, productId: string, variantId: string, fields: VariantFields) {
  const product = await findProduct(prisma, scope, productId);
  const variant = await prisma.variant.findFirst({ where: { id: variantId, productId: product.id, archivedAt: null } });
  if (!variant) throw new NotFound('Variant');
  return prisma.variant.update({ where: { id: variant.id }, data: variantData(fields) });
}
