// The delivery domain: what a paid order delivers, license keys of key-based products and files of
// DigitalDownload products, from the merchant's stock to the buyer (see src/domain-module.ts).
import type { DomainModule } from '../domain-module.js';
import { onReservationsReleased, provideDeliveredKeys } from '../orders/index.js';
import { downloadUrlBudget, keyValidationAddressBudget, keyValidationBudget } from './budgets.js';
import { DOWNLOAD_PATH } from './download-links.js';
import { handleDownload, handleFileUpload, uploadOperation } from './file-endpoints.js';
import { deliveredKeys } from './delivered-keys.js';
import { releaseLicenseKeys } from './license-keys.js';
import { routes } from './routes.js';

// An order's items show the keys they delivered; an order whose reservations go back gives its keys back to stock.
provideDeliveredKeys(deliveredKeys);
onReservationsReleased(releaseLicenseKeys);

export const deliveryModule: DomainModule = {
  tag: { name: 'Delivery', description: "What a paid order delivers: license keys of SoftwareKey and GiftCard products, files of DigitalDownload products (the buyer's inventory is under Users)" },
  registerTypes: () => Promise.all([import('./types.js'), import('./key-validation-types.js'), import('./inventory-types.js')]),
  routes,
  rateLimits: [downloadUrlBudget, keyValidationAddressBudget, keyValidationBudget],
  endpoints: [
    { path: '/v0/products/:productId/files/upload', methods: ['POST'], handle: handleFileUpload, operation: uploadOperation },
    { path: `${DOWNLOAD_PATH}/:token`, methods: ['GET'], handle: handleDownload },
  ],
};
