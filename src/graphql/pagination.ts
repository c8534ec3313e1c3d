import { builder, SortDirection } from './builder.js';

/** The spec's common list parameters as GraphQL arguments (src/core/list.ts reads them). */
export const offsetListArgs = builder.args((t) => ({
  skip: t.int({ description: 'Records to skip (>= 0)' }),
  take: t.field({ type: 'PageSize', description: 'Page size; clamped to 1..100' }),
  orderDirection: t.field({ type: SortDirection, description: 'Default DESC (newest first)' }),
  archived: t.boolean({ description: 'Only archived records (wins over withArchived)' }),
  withArchived: t.boolean({ description: 'Archived and live records' }),
  returnCount: t.boolean({ description: 'Fill in count' }),
}));
