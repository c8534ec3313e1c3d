// The list of domains. The GraphQL schema, the route table, the other HTTP endpoints, the OpenAPI
// tags, the event types, the rate limits, the worker's activities and the workflow bundle are all assembled from it:
// adding a domain is adding its module here.
import type { RateLimitRule } from './core/rate-limits.js';
import type { DomainModule } from './domain-module.js';
import type { EventDefinitions } from './events/event-types.js';
import { checkoutModule } from './checkout/module.js';
import { deliveryModule } from './delivery/module.js';
import { discountsModule } from './discounts/module.js';
import { invoicesModule } from './invoices/module.js';
import { offersModule } from './offers/module.js';
import { ordersModule } from './orders/module.js';
import { paymentMethodSessionsModule } from './payment-method-sessions/module.js';
import { paymentsModule } from './payments/module.js';
import { platformModule } from './platform/module.js';
import { portalModule } from './portal/module.js';
import { productsModule } from './products/module.js';
import { reconciliationModule } from './reconciliation/module.js';
import { refundsModule } from './refunds/module.js';
import type { EndpointOperation, HttpEndpoint } from './http/endpoint.js';
import type { TaggedRoute } from './rest/route.js';
import { subscriptionsModule } from './subscriptions/module.js';
import { taxModule } from './tax/module.js';
import { usersModule } from './users/module.js';
import { webhooksModule } from './webhooks/module.js';

export const domains: readonly DomainModule[] = [
  productsModule,
  offersModule,
  discountsModule,
  usersModule,
  checkoutModule,
  ordersModule,
  paymentsModule,
  refundsModule,
  invoicesModule,
  subscriptionsModule,
  webhooksModule,
  deliveryModule,
  platformModule,
  taxModule,
  portalModule,
  paymentMethodSessionsModule,
  reconciliationModule,
];

/** Every /v0 route, tagged with its domain. */
export const routes: readonly TaggedRoute[] = domains.flatMap((domain) => (domain.routes ?? []).map((route) => ({ ...route, tag: domain.tag?.name ?? '' })));

/** Every HTTP endpoint that is not a route (pages, webhook ingresses). */
export const endpoints: readonly HttpEndpoint[] = domains.flatMap((domain) => domain.endpoints ?? []);

/** The endpoints of the API with a body that is not JSON (a file upload), tagged with their domain: the OpenAPI document describes them beside the routes. */
export type DocumentedEndpoint = HttpEndpoint & { operation: EndpointOperation; tag: string };
export const documentedEndpoints: readonly DocumentedEndpoint[] = domains.flatMap((domain) =>
  (domain.endpoints ?? []).flatMap((endpoint) => (endpoint.operation && domain.tag ? [{ ...endpoint, operation: endpoint.operation, tag: domain.tag.name }] : [])),
);

/** The OpenAPI tags, in the order of the list. */
export const tags = domains.flatMap((domain) => (domain.tag ? [domain.tag] : []));

/** Every domain's rate limit rules, built into limiters once per server process. */
export const rateLimitRules: readonly RateLimitRule[] = domains.flatMap((domain) => domain.rateLimits ?? []);

/** Every event type a webhook can subscribe to, with its test-event sample, in the order of the list. */
export const events: EventDefinitions = Object.assign({}, ...domains.map((domain) => domain.events ?? {}));
