// The delivery routes under /v0, each served by a GraphQL field of ./types.ts.
import type { RestRoute } from '../rest/route.js';

export const routes: readonly RestRoute[] = [
  { method: 'POST', path: '/products/:productId/keys', field: 'Mutation.uploadLicenseKeys', summary: "Upload license keys to a SoftwareKey or GiftCard product's stock" },
  { method: 'GET', path: '/products/:productId/keys', field: 'Query.licenseKeys', summary: "List a product's license keys" },
  { method: 'PATCH', path: '/products/:productId/keys/:keyId/revoke', field: 'Mutation.revokeLicenseKey', summary: 'Revoke an unsold license key' },
];
