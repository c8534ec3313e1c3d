// The offers routes under /v0, each served by a GraphQL field of ./types.ts.
import type { RestRoute } from '../rest/route.js';

export const routes: readonly RestRoute[] = [
  { method: 'GET', path: '/offers/list', field: 'Query.offers', summary: 'List offers' },
  { method: 'POST', path: '/offers/create', field: 'Mutation.createOffer', summary: 'Create an offer' },
  { method: 'GET', path: '/offers/:offerId', field: 'Query.offer', summary: 'Get offer details with its product, variant and inventory' },
  { method: 'PATCH', path: '/offers/:offerId/update', field: 'Mutation.updateOffer', summary: 'Update an offer' },
  { method: 'PATCH', path: '/offers/:offerId/archive', field: 'Mutation.archiveOffer', summary: 'Archive an offer' },
];
