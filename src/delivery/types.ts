import { config } from '../config.js';
import { LicenseKeyStatus } from '../generated/prisma/enums.js';
import { SuccessPayload } from '../graphql/payloads.js';
import { builder, SortDirection } from '../graphql/builder.js';
import { scopeOf } from '../graphql/context.js';
import { CartItem, OrderStatusEnum, SubscriptionStatusEnum } from '../orders/index.js';
import { ProductTypeEnum } from '../products/index.js';
import type { InventoryEntry } from './inventory.js';
import { withoutValues, type DeliveredKey } from './delivered-keys.js';
import * as licenseKeys from './license-keys.js';
import { DEFAULT_EXPIRES_IN, MAX_EXPIRES_IN, mintDownloadUrl } from './download-links.js';
import * as files from './files.js';
import { fileStorage } from './storage.js';

const LicenseKeyStatusEnum = builder.enumType(LicenseKeyStatus, {
  name: 'LicenseKeyStatus',
  description: 'available: in stock; sold: taken by an order (given back if its payment ends unpaid); revoked: withdrawn unsold',
});
const DeliveredKeyStatus = builder.enumType('DeliveredKeyStatus', {
  values: ['active', 'revoked'] as const,
  description: 'revoked once the unit it was sold for is refunded, or its order refunded in full or cancelled',
});

/** A sold key on the buyer's side (order details, inventory, the order's webhook payloads). */
export const DeliveredLicenseKey = builder.objectRef<DeliveredKey | (Omit<DeliveredKey, 'key'> & { key: null })>('DeliveredLicenseKey').implement({
  fields: (t) => ({
    object: t.exposeString('object'),
    id: t.exposeID('id'),
    key: t.exposeString('key', { nullable: true, description: 'The key; null unless the request carries the secret key' }),
    unit: t.exposeInt('unit', { description: 'The unit of the item it was sold for (0 first)' }),
    status: t.field({ type: DeliveredKeyStatus, resolve: (key) => key.status }),
  }),
});

/** Keys' values go only to callers holding the secret key (the merchant's back end); a public key sees ids and statuses. */
export async function keysFor(keys: DeliveredKey[], principal: () => Promise<{ canWrite: boolean }>) {
  if (keys.length === 0) return keys;
  return (await principal()).canWrite ? keys : withoutValues(keys);
}

builder.objectField(CartItem, 'licenseKeys', (t) =>
  t.field({
    type: [DeliveredLicenseKey],
    description: 'For SoftwareKey and GiftCard products: one key per unit once the order is paid',
    resolve: (item, _args, ctx) => keysFor(item.licenseKeys, () => ctx.principal('read')),
  }),
);

const DownloadFile = builder.objectRef<ReturnType<typeof files.fileResource>>('DownloadFile').implement({
  description: 'A file a DigitalDownload product (or one of its variants) delivers',
  fields: (t) => ({
    object: t.exposeString('object'),
    id: t.exposeID('id'),
    productId: t.exposeID('productId'),
    variantId: t.exposeID('variantId', { nullable: true }),
    fileName: t.exposeString('fileName'),
    mimeType: t.exposeString('mimeType', { nullable: true, description: 'The content type sent with the upload' }),
    size: t.exposeFloat('size', { description: 'Bytes' }),
    sha256: t.exposeString('sha256', { description: 'Hex SHA-256 of the bytes' }),
    createdAt: t.expose('createdAt', { type: 'Timestamp' }),
  }),
});
/** An item the buyer owns (GET /v0/users/{userId}/inventory). */
export const InventoryItem = builder.objectRef<InventoryEntry>('InventoryItem').implement({
  fields: (t) => ({
    object: t.exposeString('object'),
    id: t.exposeID('id', { description: 'The order item' }),
    orderId: t.exposeID('orderId'),
    orderNumber: t.exposeString('orderNumber'),
    orderStatus: t.field({ type: OrderStatusEnum, resolve: (item) => item.orderStatus }),
    paidAt: t.expose('paidAt', { type: 'Timestamp', nullable: true }),
    productId: t.exposeID('productId'),
    productName: t.exposeString('productName', { nullable: true, description: "The product's name now (null if it is gone)" }),
    productType: t.field({ type: ProductTypeEnum, nullable: true, resolve: (item) => item.productType }),
    offerId: t.exposeID('offerId'),
    offerName: t.exposeString('offerName', { nullable: true }),
    variantId: t.exposeID('variantId', { nullable: true }),
    quantity: t.exposeInt('quantity'),
    refundedQuantity: t.exposeInt('refundedQuantity', { description: 'Units given back by refunds' }),
    licenseKeys: t.field({
      type: [DeliveredLicenseKey],
      description: 'For SoftwareKey and GiftCard products: one key per unit (values with the secret key only)',
      resolve: (item, _args, ctx) => keysFor(item.licenseKeys, () => ctx.principal('read')),
    }),
    download: t.field({
      type: DownloadFile,
      nullable: true,
      description: 'For DigitalDownload products: the file a download URL of this item serves; null when there is none',
      resolve: (item) => item.download,
    }),
    subscriptionId: t.exposeString('subscriptionId', { nullable: true, description: "For a subscription item: the subscription's id (its number)" }),
    subscriptionStatus: t.field({ type: SubscriptionStatusEnum, nullable: true, resolve: (item) => item.subscriptionStatus }),
    createdAt: t.expose('createdAt', { type: 'Timestamp' }),
  }),
});

type LicenseKeyShape = ReturnType<typeof licenseKeys.licenseKeyResource>;

const LicenseKey = builder.objectRef<LicenseKeyShape>('LicenseKey').implement({
  description: "A key of a product's stock, as the merchant sees it",
  fields: (t) => ({
    object: t.exposeString('object'),
    id: t.exposeID('id'),
    productId: t.exposeID('productId'),
    variantId: t.exposeID('variantId', { nullable: true }),
    key: t.exposeString('key', { nullable: true, description: 'The key; null unless the request carries the secret key' }),
    status: t.field({ type: LicenseKeyStatusEnum, resolve: (key) => key.status }),
    orderItemId: t.exposeID('orderItemId', { nullable: true, description: 'The order item a sold key went to' }),
    createdAt: t.expose('createdAt', { type: 'Timestamp' }),
    soldAt: t.expose('soldAt', { type: 'Timestamp', nullable: true }),
    revokedAt: t.expose('revokedAt', { type: 'Timestamp', nullable: true }),
  }),
});

const LicenseKeyList = builder.simpleObject('LicenseKeyList', {
  fields: (t) => ({ licenseKeys: t.field({ type: [LicenseKey] }), count: t.int({ nullable: true }) }),
});
const LicenseKeyPayload = builder.simpleObject('LicenseKeyPayload', { fields: (t) => ({ licenseKey: t.field({ type: LicenseKey }) }) });
const LicenseKeyUpload = builder.simpleObject('LicenseKeyUpload', {
  fields: (t) => ({
    object: t.string(),
    productId: t.id(),
    variantId: t.id({ nullable: true }),
    received: t.int({ description: 'Keys in the request' }),
    created: t.int({ description: 'Keys added to stock' }),
    skipped: t.int({ description: "Duplicates skipped: repeated in the request or already in the product's stock" }),
  }),
});
const LicenseKeyUploadPayload = builder.simpleObject('LicenseKeyUploadPayload', { fields: (t) => ({ upload: t.field({ type: LicenseKeyUpload }) }) });

builder.queryFields((t) => ({
  licenseKeys: t.field({
    type: LicenseKeyList,
    description: "A product's license keys, newest first by default; values only with the secret key",
    args: {
      productId: t.arg({ type: 'UUID', required: true }),
      skip: t.arg.int({ description: 'Records to skip (>= 0)' }),
      take: t.arg({ type: 'PageSize', description: 'Page size; default 20, clamped to 1..100' }),
      orderDirection: t.arg({ type: SortDirection, description: 'Default DESC (newest first)' }),
      returnCount: t.arg.boolean({ description: 'Fill in count' }),
      status: t.arg({ type: LicenseKeyStatusEnum }),
      variantId: t.arg({ type: 'UUID' }),
    },
    resolve: async (_root, { productId, ...args }, ctx) => licenseKeys.listLicenseKeys(ctx.prisma, await ctx.principal('read'), productId, args),
  }),
}));

builder.mutationFields((t) => ({
  uploadLicenseKeys: t.field({
    type: LicenseKeyUploadPayload,
    description: `Adds keys to a SoftwareKey or GiftCard product's stock, all or none; duplicates are skipped and counted`,
    args: {
      productId: t.arg({ type: 'UUID', required: true }),
      keys: t.arg.stringList({ required: true, description: `1 to ${licenseKeys.MAX_KEYS_PER_UPLOAD} keys, each trimmed, 1 to ${licenseKeys.MAX_KEY_LENGTH} characters` }),
      variantId: t.arg({ type: 'UUID', description: "The keys are for this variant's offers only (default: the offers without a variant)" }),
    },
    resolve: async (_root, { productId, ...upload }, ctx) => ({
      upload: await licenseKeys.uploadLicenseKeys(ctx.prisma, await scopeOf(ctx, 'write'), productId, upload),
    }),
  }),
  revokeLicenseKey: t.field({
    type: LicenseKeyPayload,
    description: 'Withdraws an unsold key from stock for good (a sold key is 400)',
    args: { productId: t.arg({ type: 'UUID', required: true }), keyId: t.arg({ type: 'UUID', required: true }) },
    resolve: async (_root, args, ctx) => ({
      licenseKey: await licenseKeys.revokeLicenseKey(ctx.prisma, await scopeOf(ctx, 'write'), args.productId, args.keyId),
    }),
  }),
}));

const DownloadFileList = builder.simpleObject('DownloadFileList', {
  fields: (t) => ({ files: t.field({ type: [DownloadFile] }), count: t.int() }),
});
const DownloadUrl = builder.simpleObject('DownloadUrl', {
  fields: (t) => ({
    url: t.string({ description: 'Served by this service; works until validTill unless the item is refunded first' }),
    validTill: t.int({ description: 'Unix seconds: the latest time the URL can work' }),
    mimeType: t.string({ nullable: true, description: 'The content type recorded when the file was attached' }),
    fileName: t.string(),
    size: t.float({ description: 'Bytes' }),
    sha256: t.string({ description: 'Hex SHA-256 of the file' }),
  }),
});

builder.queryFields((t) => ({
  productFiles: t.field({
    type: DownloadFileList,
    description: "A DigitalDownload product's files, newest first",
    args: { productId: t.arg({ type: 'UUID', required: true }) },
    resolve: async (_root, args, ctx) => files.listFiles(ctx.prisma, await scopeOf(ctx, 'read'), args.productId),
  }),
}));

builder.mutationFields((t) => ({
  removeProductFile: t.field({
    type: SuccessPayload,
    description: 'Removes a file and its bytes; URLs minted for it stop working',
    args: { productId: t.arg({ type: 'UUID', required: true }), fileId: t.arg({ type: 'UUID', required: true }) },
    resolve: async (_root, args, ctx) => files.removeFile(ctx.prisma, fileStorage(), await scopeOf(ctx, 'write'), args.productId, args.fileId),
  }),
  orderItemDownloadUrl: t.field({
    type: DownloadUrl,
    description: `A URL for the file of one item of a paid order. 404: unknown order, item not on it, no download (keyed products deliver keys); 400: never paid, refunded, every unit refunded, expiresIn outside 1..${MAX_EXPIRES_IN}; 429 above ${config.downloads.urlsPerMinute} a minute per workspace`,
    args: {
      orderIdOrNumber: t.arg.string({ required: true }),
      itemId: t.arg.string({ required: true, description: 'The id of an entry of the order webhook payload items' }),
      expiresIn: t.arg.int({ description: `Seconds, default ${DEFAULT_EXPIRES_IN}, 1 to ${MAX_EXPIRES_IN} (never clamped)` }),
    },
    resolve: async (_root, args, ctx) => mintDownloadUrl(ctx, await scopeOf(ctx, 'write'), { ...args, origin: ctx.origin, now: new Date() }),
  }),
}));
