// The spec's list parameters as Prisma arguments: pages, archived filters, search terms.
import { Prisma } from '../generated/prisma/client.js';
import { ValidationFailed } from './errors.js';
import { isUuid } from './uuid.js';

export const TAKE_CAP = 100;

/** The spec's common list parameters (offset pagination). */
export interface OffsetListArgs {
  skip?: number | null;
  take?: number | null;
  orderDirection?: 'ASC' | 'DESC' | null;
  archived?: boolean | null;
  withArchived?: boolean | null;
  returnCount?: boolean | null;
}

/** skip must be >= 0 (400 otherwise); take is clamped to 1..100, never rejected. */
export function offsetPage(args: Pick<OffsetListArgs, 'skip' | 'take'>, defaultTake: number) {
  const skip = args.skip ?? 0;
  if (skip < 0) throw new ValidationFailed('skip must be >= 0');
  const take = Math.min(TAKE_CAP, Math.max(1, args.take ?? defaultTake));
  return { skip, take };
}

/** archived=true returns only archived records and wins over withArchived=true (both). */
export function archivedWhere(args: Pick<OffsetListArgs, 'archived' | 'withArchived'>) {
  if (args.archived) return { archivedAt: { not: null } };
  if (args.withArchived) return {};
  return { archivedAt: null };
}

export const direction = (args: Pick<OffsetListArgs, 'orderDirection'>) => (args.orderDirection === 'ASC' ? 'asc' : 'desc');

/** Page pagination (users): page is 1-based, limit clamped to 1..100. */
export function pagePage(args: { page?: number | null; limit?: number | null }, defaultLimit: number) {
  const page = args.page ?? 1;
  if (page < 1) throw new ValidationFailed('page must be >= 1');
  const limit = Math.min(TAKE_CAP, Math.max(1, args.limit ?? defaultLimit));
  return { page, limit, skip: (page - 1) * limit };
}

export const pageCount = (count: number, limit: number) => Math.ceil(count / limit);

/** `%`, `_` and the backslash escaped to match themselves in an ILIKE pattern. */
const escapeLike = (term: string) => term.replace(/[\\%_]/g, '\\$&');

/**
 * A case-insensitive substring filter for search parameters. Prisma passes `contains` to ILIKE
 * unescaped, so `%` and `_` in a search term are escaped to match themselves.
 */
export const containsText = (term: string) => ({ contains: escapeLike(term), mode: 'insensitive' as const });

/** The spec's `termOrId` search: the trimmed term within any of `fields`, or the record's id when it is a UUID. */
export function termOrIdWhere<Field extends string>(termOrId: string, fields: readonly Field[]) {
  const term = termOrId.trim();
  const or: (Partial<Record<Field, ReturnType<typeof containsText>>> | { id: string })[] = fields.map(
    (field) => ({ [field]: containsText(term) }) as Partial<Record<Field, ReturnType<typeof containsText>>>,
  );
  if (isUuid(term)) or.push({ id: term.toLowerCase() });
  return { OR: or };
}

/** termOrIdWhere for a list read in SQL of our own: the same match (ILIKE, as Prisma's `contains` sends it) over `columns`, or `id`. */
export function termOrIdSql(termOrId: string, columns: readonly Prisma.Sql[], id: Prisma.Sql): Prisma.Sql {
  const term = termOrId.trim();
  const pattern = `%${escapeLike(term)}%`;
  const or = columns.map((column) => Prisma.sql`${column} ILIKE ${pattern}`);
  if (isUuid(term)) or.push(Prisma.sql`${id} = ${term.toLowerCase()}::uuid`);
  return Prisma.sql`(${Prisma.join(or, ' OR ')})`;
}
