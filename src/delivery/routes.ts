// The delivery routes under /v0, each served by a GraphQL field of ./types.ts. The file upload and
// the download itself are HTTP endpoints (module.ts): their bodies are files, not JSON.
import type { RestRoute } from '../rest/route.js';

export const routes: readonly RestRoute[] = [
  { method: 'POST', path: '/products/:productId/keys', field: 'Mutation.uploadLicenseKeys', summary: "Upload license keys to a SoftwareKey or GiftCard product's stock" },
  { method: 'GET', path: '/products/:productId/keys', field: 'Query.licenseKeys', summary: "List a product's license keys" },
  { method: 'PATCH', path: '/products/:productId/keys/:keyId/revoke', field: 'Mutation.revokeLicenseKey', summary: 'Revoke an unsold license key' },
  { method: 'GET', path: '/offers/:offerId/license-key-policy', field: 'Query.licenseKeyPolicy', summary: "An offer's license key policy (activation limit, validity)" },
  { method: 'PATCH', path: '/offers/:offerId/license-key-policy', field: 'Mutation.setLicenseKeyPolicy', summary: "Set an offer's license key policy" },
  { method: 'POST', path: '/license-keys/validate', publicKeyOnly: true, field: 'Mutation.validateLicenseKey', summary: 'Check whether a license key is valid (public key)' },
  { method: 'POST', path: '/license-keys/activate', publicKeyOnly: true, field: 'Mutation.activateLicenseKey', summary: 'Activate an instance on a license key (public key)', errors: [404, 409] },
  { method: 'POST', path: '/license-keys/deactivate', publicKeyOnly: true, field: 'Mutation.deactivateLicenseKey', summary: 'Deactivate an instance of a license key (public key)', errors: [404] },
  { method: 'GET', path: '/products/:productId/files', field: 'Query.productFiles', summary: "List a DigitalDownload product's files" },
  { method: 'PATCH', path: '/products/:productId/files/:fileId/remove', field: 'Mutation.removeProductFile', summary: 'Remove a file' },
  {
    method: 'POST',
    path: '/orders/:orderIdOrNumber/items/:itemId/download-url',
    field: 'Mutation.orderItemDownloadUrl',
    summary: 'Create a download URL for an item of a paid order',
    errors: [429],
  },
];
