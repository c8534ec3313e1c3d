import { lexicographicSortSchema, type GraphQLSchema } from 'graphql';
import { builder } from './builder.js';
import { enforceInputLimits } from './input-limits.js';
// Each domain registers its types and fields on the shared builder when imported.
import '../catalog/products.js';
import '../catalog/offers.js';
import '../checkout/elements.js';
import '../discounts/discounts.js';
import '../users/users.js';
import '../webhooks/webhooks.js';

export interface Schemas {
  /** What /v0 and internal clients see. */
  client: GraphQLSchema;
  /** The same schema as an Apollo Federation v2 subgraph (what /graphql serves). */
  subgraph: GraphQLSchema;
}

let built: Schemas | undefined;

export function buildSchemas(): Schemas {
  // The input limits wrap resolvers, so they go on last: sorting rebuilds the schema's fields.
  built ??= {
    subgraph: enforceInputLimits(lexicographicSortSchema(builder.toSubGraphSchema({ linkUrl: 'https://specs.apollo.dev/federation/v2.6', federationDirectives: ['@key'] }))),
    client: enforceInputLimits(lexicographicSortSchema(builder.toSchema())),
  };
  return built;
}
