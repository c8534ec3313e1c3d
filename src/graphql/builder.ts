import SchemaBuilder from '@pothos/core';
import DirectivesPlugin from '@pothos/plugin-directives';
import FederationPlugin from '@pothos/plugin-federation';
import PrismaPlugin from '@pothos/plugin-prisma';
import SimpleObjectsPlugin from '@pothos/plugin-simple-objects';
import type PrismaTypes from '../generated/pothos-types.js';
import { getDatamodel } from '../generated/pothos-types.js';
import type { Context } from './context.js';
import { JsonScalar, PageSizeScalar, TimestampScalar, UuidScalar } from './scalars.js';

export const builder = new SchemaBuilder<{
  Context: Context;
  PrismaTypes: PrismaTypes;
  DefaultFieldNullability: false;
  Scalars: {
    JSON: { Input: unknown; Output: unknown };
    Timestamp: { Input: number; Output: number | Date };
    PageSize: { Input: number; Output: number };
    UUID: { Input: string; Output: string };
  };
}>({
  // Directives must come before federation (DESIGN.md).
  plugins: [DirectivesPlugin, PrismaPlugin, SimpleObjectsPlugin, FederationPlugin],
  // Fields mirror the spec's resource objects: non-null unless the spec says "or null".
  defaultFieldNullability: false,
  prisma: {
    client: (ctx) => ctx.prisma,
    dmmf: getDatamodel(),
    exposeDescriptions: false,
    filterConnectionTotalCount: true,
    onUnusedQuery: null,
  },
});

builder.addScalarType('JSON', JsonScalar);
builder.addScalarType('Timestamp', TimestampScalar);
builder.addScalarType('PageSize', PageSizeScalar);
builder.addScalarType('UUID', UuidScalar);

builder.queryType({});
builder.mutationType({});

export const SortDirection = builder.enumType('SortDirection', { values: ['ASC', 'DESC'] as const });

