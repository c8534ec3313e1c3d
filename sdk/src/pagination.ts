// Async iterators over the API's three pagination styles, item by item, fetching page after page:
// offset (skip/take: most lists), page (page/limit: users, a buyer's inventory) and cursor
// (cursor/take: subscriptions). Each takes the list's path, the key of its items in the answer's
// data and the list's other parameters, typed from the document.
import type { paths } from './generated/openapi.js';

type Get<P extends keyof paths> = paths[P] extends { get: infer O } ? O : never;
/** The `data` of a path's successful GET. */
export type ListData<P extends keyof paths> = Get<P> extends { responses: { 200: { content: { 'application/json': { data: infer D } } } } } ? D : never;
type QueryOf<P extends keyof paths> = Get<P> extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;
type PathParamsOf<P extends keyof paths> = Get<P> extends { parameters: { path: infer A } } ? A : never;
/** The keys of a list's data that hold its items. */
export type ItemsKey<P extends keyof paths> = { [K in keyof ListData<P>]: ListData<P>[K] extends readonly unknown[] ? K : never }[keyof ListData<P>];
export type ItemOf<P extends keyof paths, K extends ItemsKey<P>> = ListData<P>[K] extends readonly (infer T)[] ? T : never;

type WithQuery<Keys extends string> = { [P in keyof paths]: [Keys] extends [keyof QueryOf<P>] ? P : never }[keyof paths];
export type OffsetListPath = WithQuery<'skip' | 'take'>;
export type PageListPath = WithQuery<'page' | 'limit'>;
export type CursorListPath = WithQuery<'cursor' | 'take'>;

export type ListOptions<P extends keyof paths, Paging extends string> = {
  /** The list's other query parameters (filters, sorting). */
  query?: Omit<QueryOf<P>, Paging>;
  /** Items per request (the API's cap is 100). Default 100. */
  pageSize?: number;
} & ([PathParamsOf<P>] extends [never] ? { path?: undefined } : { path: PathParamsOf<P> });

/** What the iterators need of the client: a GET by path returning the envelope. */
export type ListGet = (path: string, init: { params: { path?: unknown; query: Record<string, unknown> } }) => Promise<{ data?: { data: unknown } }>;

async function page(get: ListGet, path: string, pathParams: unknown, query: Record<string, unknown>): Promise<Record<string, unknown>> {
  const { data } = await get(path, { params: { path: pathParams, query } });
  return (data?.data ?? {}) as Record<string, unknown>;
}

const itemsOf = (data: Record<string, unknown>, key: PropertyKey) => (data[key as string] ?? []) as unknown[];

export function paginators(get: ListGet) {
  return {
    /** skip/take lists: steps skip by the number of records returned; a short page is the last. */
    async *offset<P extends OffsetListPath, K extends ItemsKey<P>>(path: P, key: K, options?: ListOptions<P, 'skip' | 'take'>): AsyncGenerator<ItemOf<P, K>> {
      const take = options?.pageSize ?? 100;
      for (let skip = 0; ; ) {
        const items = itemsOf(await page(get, path, options?.path, { ...(options?.query as object), skip, take }), key);
        yield* items as ItemOf<P, K>[];
        if (items.length < take) return;
        skip += items.length;
      }
    },
    /** page/limit lists (1-based pages): until the answer's page count is reached. */
    async *pages<P extends PageListPath, K extends ItemsKey<P>>(path: P, key: K, options?: ListOptions<P, 'page' | 'limit'>): AsyncGenerator<ItemOf<P, K>> {
      const limit = options?.pageSize ?? 100;
      for (let number = 1; ; number++) {
        const data = await page(get, path, options?.path, { ...(options?.query as object), page: number, limit });
        const items = itemsOf(data, key);
        yield* items as ItemOf<P, K>[];
        if (items.length === 0 || number >= Number(data.pages ?? 0)) return;
      }
    },
    /** cursor lists: follows data.cursor while data.hasMore. */
    async *cursor<P extends CursorListPath, K extends ItemsKey<P>>(path: P, key: K, options?: ListOptions<P, 'cursor' | 'take'>): AsyncGenerator<ItemOf<P, K>> {
      const take = options?.pageSize ?? 100;
      for (let cursor: unknown = undefined; ; ) {
        const data = await page(get, path, options?.path, { ...(options?.query as object), take, ...(cursor ? { cursor } : {}) });
        yield* itemsOf(data, key) as ItemOf<P, K>[];
        if (!data.hasMore || !data.cursor) return;
        cursor = data.cursor;
      }
    },
  };
}
