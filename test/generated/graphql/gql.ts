/* eslint-disable */
import * as types from './graphql.js';
import type { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';

/**
 * Map of all GraphQL operations in the project.
 *
 * This map has several performance disadvantages:
 * 1. It is not tree-shakeable, so it will include all operations in the project.
 * 2. It is not minifiable, so the string of a GraphQL query will be multiple times inside the bundle.
 * 3. It does not support dead code elimination, so it will add unused operations.
 *
 * Therefore it is highly recommended to use the babel or swc plugin for production.
 * Learn more about it here: https://the-guild.dev/graphql/codegen/plugins/presets/preset-client#reducing-bundle-size
 */
type Documents = {
    "fragment ProductFields on Product {\n  object\n  id\n  type\n  name\n  description\n  status\n  slug\n  projectId\n  internalId\n  genres\n  customFields\n  createdAt\n}\n\nquery ListProducts($termOrId: String, $take: PageSize, $returnCount: Boolean, $orderDirection: SortDirection) {\n  products(\n    termOrId: $termOrId\n    take: $take\n    returnCount: $returnCount\n    orderDirection: $orderDirection\n  ) {\n    count\n    products {\n      ...ProductFields\n    }\n  }\n}\n\nquery GetProduct($productId: UUID!) {\n  product(productId: $productId) {\n    product {\n      object\n      id\n      name\n      slug\n      variants {\n        object\n        id\n        name\n        order\n      }\n    }\n  }\n}\n\nmutation CreateProduct($name: String!, $projectId: UUID!, $type: ProductType!, $description: String, $genres: [String!]) {\n  createProduct(\n    name: $name\n    projectId: $projectId\n    type: $type\n    description: $description\n    genres: $genres\n  ) {\n    product {\n      ...ProductFields\n    }\n  }\n}": typeof types.ProductFieldsFragmentDoc,
    "query ListSubscriptions($take: PageSize, $cursor: String, $createdFrom: Timestamp, $createdTo: Timestamp) {\n  subscriptions(\n    take: $take\n    cursor: $cursor\n    createdFrom: $createdFrom\n    createdTo: $createdTo\n  ) {\n    count\n    cursor\n    hasMore\n    subscriptions {\n      object\n      id\n      status\n      amount\n      createdAt\n    }\n  }\n}\n\nquery GetSubscription($subscriptionIdOrNumber: String!) {\n  subscription(subscriptionIdOrNumber: $subscriptionIdOrNumber) {\n    subscription {\n      object\n      id\n      status\n      userId\n      user {\n        id\n        email\n      }\n      items {\n        id\n        orderId\n        offerId\n        quantity\n        unitPrice\n      }\n      payments {\n        id\n        number\n        status\n        amount\n      }\n    }\n  }\n}": typeof types.ListSubscriptionsDocument,
};
const documents: Documents = {
    "fragment ProductFields on Product {\n  object\n  id\n  type\n  name\n  description\n  status\n  slug\n  projectId\n  internalId\n  genres\n  customFields\n  createdAt\n}\n\nquery ListProducts($termOrId: String, $take: PageSize, $returnCount: Boolean, $orderDirection: SortDirection) {\n  products(\n    termOrId: $termOrId\n    take: $take\n    returnCount: $returnCount\n    orderDirection: $orderDirection\n  ) {\n    count\n    products {\n      ...ProductFields\n    }\n  }\n}\n\nquery GetProduct($productId: UUID!) {\n  product(productId: $productId) {\n    product {\n      object\n      id\n      name\n      slug\n      variants {\n        object\n        id\n        name\n        order\n      }\n    }\n  }\n}\n\nmutation CreateProduct($name: String!, $projectId: UUID!, $type: ProductType!, $description: String, $genres: [String!]) {\n  createProduct(\n    name: $name\n    projectId: $projectId\n    type: $type\n    description: $description\n    genres: $genres\n  ) {\n    product {\n      ...ProductFields\n    }\n  }\n}": types.ProductFieldsFragmentDoc,
    "query ListSubscriptions($take: PageSize, $cursor: String, $createdFrom: Timestamp, $createdTo: Timestamp) {\n  subscriptions(\n    take: $take\n    cursor: $cursor\n    createdFrom: $createdFrom\n    createdTo: $createdTo\n  ) {\n    count\n    cursor\n    hasMore\n    subscriptions {\n      object\n      id\n      status\n      amount\n      createdAt\n    }\n  }\n}\n\nquery GetSubscription($subscriptionIdOrNumber: String!) {\n  subscription(subscriptionIdOrNumber: $subscriptionIdOrNumber) {\n    subscription {\n      object\n      id\n      status\n      userId\n      user {\n        id\n        email\n      }\n      items {\n        id\n        orderId\n        offerId\n        quantity\n        unitPrice\n      }\n      payments {\n        id\n        number\n        status\n        amount\n      }\n    }\n  }\n}": types.ListSubscriptionsDocument,
};

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 *
 *
 * @example
 * ```ts
 * const query = graphql(`query GetUser($id: ID!) { user(id: $id) { name } }`);
 * ```
 *
 * The query argument is unknown!
 * Please regenerate the types.
 */
export function graphql(source: string): unknown;

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "fragment ProductFields on Product {\n  object\n  id\n  type\n  name\n  description\n  status\n  slug\n  projectId\n  internalId\n  genres\n  customFields\n  createdAt\n}\n\nquery ListProducts($termOrId: String, $take: PageSize, $returnCount: Boolean, $orderDirection: SortDirection) {\n  products(\n    termOrId: $termOrId\n    take: $take\n    returnCount: $returnCount\n    orderDirection: $orderDirection\n  ) {\n    count\n    products {\n      ...ProductFields\n    }\n  }\n}\n\nquery GetProduct($productId: UUID!) {\n  product(productId: $productId) {\n    product {\n      object\n      id\n      name\n      slug\n      variants {\n        object\n        id\n        name\n        order\n      }\n    }\n  }\n}\n\nmutation CreateProduct($name: String!, $projectId: UUID!, $type: ProductType!, $description: String, $genres: [String!]) {\n  createProduct(\n    name: $name\n    projectId: $projectId\n    type: $type\n    description: $description\n    genres: $genres\n  ) {\n    product {\n      ...ProductFields\n    }\n  }\n}"): (typeof documents)["fragment ProductFields on Product {\n  object\n  id\n  type\n  name\n  description\n  status\n  slug\n  projectId\n  internalId\n  genres\n  customFields\n  createdAt\n}\n\nquery ListProducts($termOrId: String, $take: PageSize, $returnCount: Boolean, $orderDirection: SortDirection) {\n  products(\n    termOrId: $termOrId\n    take: $take\n    returnCount: $returnCount\n    orderDirection: $orderDirection\n  ) {\n    count\n    products {\n      ...ProductFields\n    }\n  }\n}\n\nquery GetProduct($productId: UUID!) {\n  product(productId: $productId) {\n    product {\n      object\n      id\n      name\n      slug\n      variants {\n        object\n        id\n        name\n        order\n      }\n    }\n  }\n}\n\nmutation CreateProduct($name: String!, $projectId: UUID!, $type: ProductType!, $description: String, $genres: [String!]) {\n  createProduct(\n    name: $name\n    projectId: $projectId\n    type: $type\n    description: $description\n    genres: $genres\n  ) {\n    product {\n      ...ProductFields\n    }\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query ListSubscriptions($take: PageSize, $cursor: String, $createdFrom: Timestamp, $createdTo: Timestamp) {\n  subscriptions(\n    take: $take\n    cursor: $cursor\n    createdFrom: $createdFrom\n    createdTo: $createdTo\n  ) {\n    count\n    cursor\n    hasMore\n    subscriptions {\n      object\n      id\n      status\n      amount\n      createdAt\n    }\n  }\n}\n\nquery GetSubscription($subscriptionIdOrNumber: String!) {\n  subscription(subscriptionIdOrNumber: $subscriptionIdOrNumber) {\n    subscription {\n      object\n      id\n      status\n      userId\n      user {\n        id\n        email\n      }\n      items {\n        id\n        orderId\n        offerId\n        quantity\n        unitPrice\n      }\n      payments {\n        id\n        number\n        status\n        amount\n      }\n    }\n  }\n}"): (typeof documents)["query ListSubscriptions($take: PageSize, $cursor: String, $createdFrom: Timestamp, $createdTo: Timestamp) {\n  subscriptions(\n    take: $take\n    cursor: $cursor\n    createdFrom: $createdFrom\n    createdTo: $createdTo\n  ) {\n    count\n    cursor\n    hasMore\n    subscriptions {\n      object\n      id\n      status\n      amount\n      createdAt\n    }\n  }\n}\n\nquery GetSubscription($subscriptionIdOrNumber: String!) {\n  subscription(subscriptionIdOrNumber: $subscriptionIdOrNumber) {\n    subscription {\n      object\n      id\n      status\n      userId\n      user {\n        id\n        email\n      }\n      items {\n        id\n        orderId\n        offerId\n        quantity\n        unitPrice\n      }\n      payments {\n        id\n        number\n        status\n        amount\n      }\n    }\n  }\n}"];

export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}

export type DocumentType<TDocumentNode extends DocumentNode<any, any>> = TDocumentNode extends DocumentNode<  infer TType,  any>  ? TType  : never;