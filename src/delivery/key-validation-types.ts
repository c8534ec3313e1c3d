// GraphQL of the public license key validation (./key-validation.ts) and of offers' key policies.
import { systemClock } from '../core/time.js';
import { builder } from '../graphql/builder.js';
import { scopeOf } from '../graphql/context.js';
import * as validation from './key-validation.js';

const KeyValidityEnum = builder.enumType('LicenseKeyValidity', {
  values: validation.KEY_VALIDITIES,
  description: 'granted: valid; revoked: its unit was refunded, or its order refunded in full or cancelled; expired: past expiresAt; not_found: no such key sold to a paid order of the product',
});

const LicenseKeyValidation = builder.objectRef<validation.KeyValidation>('LicenseKeyValidation').implement({
  description: "Whether a key is valid now, for the seller's software",
  fields: (t) => ({
    object: t.exposeString('object'),
    valid: t.exposeBoolean('valid', { description: 'True when status is granted' }),
    status: t.field({ type: KeyValidityEnum, resolve: (answer) => answer.status }),
    productId: t.exposeID('productId'),
    licenseKeyId: t.exposeID('licenseKeyId', { nullable: true }),
    offerId: t.exposeID('offerId', { nullable: true }),
    orderId: t.exposeID('orderId', { nullable: true }),
    expiresAt: t.exposeInt('expiresAt', { nullable: true, description: "Unix seconds; null when the offer's keys do not expire" }),
    activationLimit: t.exposeInt('activationLimit', { nullable: true, description: 'Instances the key may be activated on; null: no limit' }),
    activations: t.exposeInt('activations', { description: 'Instances it is activated on' }),
    instance: t.exposeString('instance', { nullable: true, description: 'The instance asked about' }),
    instanceActivated: t.exposeBoolean('instanceActivated', { nullable: true, description: 'Whether that instance is activated; null when none was given' }),
  }),
});
const LicenseKeyValidationPayload = builder.simpleObject('LicenseKeyValidationPayload', { fields: (t) => ({ validation: t.field({ type: LicenseKeyValidation }) }) });

const LicenseKeyPolicy = builder.objectRef<Awaited<ReturnType<typeof validation.licenseKeyPolicy>>>('LicenseKeyPolicy').implement({
  description: "How an offer's keys may be used: activations per key and validity after payment",
  fields: (t) => ({
    object: t.exposeString('object'),
    offerId: t.exposeID('offerId'),
    activationLimit: t.exposeInt('activationLimit', { nullable: true, description: 'Instances each key may be activated on; null: no limit' }),
    validForDays: t.exposeInt('validForDays', { nullable: true, description: 'Days a key stays valid after its order was paid; null: no expiry' }),
  }),
});
const LicenseKeyPolicyPayload = builder.simpleObject('LicenseKeyPolicyPayload', { fields: (t) => ({ policy: t.field({ type: LicenseKeyPolicy }) }) });

builder.queryFields((t) => ({
  licenseKeyPolicy: t.field({
    type: LicenseKeyPolicyPayload,
    description: "An offer's license key policy (all null when never set)",
    args: { offerId: t.arg({ type: 'UUID', required: true }) },
    resolve: async (_root, args, ctx) => ({ policy: await validation.licenseKeyPolicy(ctx.prisma, await scopeOf(ctx, 'read'), args.offerId) }),
  }),
}));

builder.mutationFields((t) => ({
  setLicenseKeyPolicy: t.field({
    type: LicenseKeyPolicyPayload,
    description: 'Sets how the keys of a SoftwareKey or GiftCard offer may be used; an absent field is unchanged, null removes the limit',
    args: {
      offerId: t.arg({ type: 'UUID', required: true }),
      activationLimit: t.arg.int({ description: `1 to ${validation.MAX_ACTIVATION_LIMIT}; null: no limit` }),
      validForDays: t.arg.int({ description: `1 to ${validation.MAX_VALID_FOR_DAYS}; null: no expiry` }),
    },
    resolve: async (_root, { offerId, ...update }, ctx) => ({ policy: await validation.setLicenseKeyPolicy(ctx.prisma, await scopeOf(ctx, 'write'), offerId, update) }),
  }),
  validateLicenseKey: t.field({
    type: LicenseKeyValidationPayload,
    description: 'Whether a key is valid (the public key suffices); an unknown key answers status not_found',
    args: {
      productId: t.arg({ type: 'UUID', required: true }),
      key: t.arg.string({ required: true, description: 'The key as the buyer received it' }),
      instance: t.arg.string({ description: 'Also report whether this instance is activated' }),
    },
    resolve: async (_root, args, ctx) => ({ validation: await validation.validateLicenseKey(ctx, await scopeOf(ctx, 'read'), args, systemClock()) }),
  }),
  activateLicenseKey: t.field({
    type: LicenseKeyValidationPayload,
    description: "Activates an instance on a valid key (again changes nothing). 404 unknown key; 400 revoked or expired; 409 at the offer's activation limit",
    args: {
      productId: t.arg({ type: 'UUID', required: true }),
      key: t.arg.string({ required: true, description: 'The key as the buyer received it' }),
      instance: t.arg.string({ required: true, description: `A machine or installation id, 1 to ${validation.MAX_INSTANCE_LENGTH} characters` }),
    },
    resolve: async (_root, args, ctx) => ({ validation: await validation.activateLicenseKey(ctx, await scopeOf(ctx, 'read'), args, systemClock()) }),
  }),
  deactivateLicenseKey: t.field({
    type: LicenseKeyValidationPayload,
    description: "Frees an instance's activation. 404 unknown key or instance",
    args: {
      productId: t.arg({ type: 'UUID', required: true }),
      key: t.arg.string({ required: true, description: 'The key as the buyer received it' }),
      instance: t.arg.string({ required: true }),
    },
    resolve: async (_root, args, ctx) => ({ validation: await validation.deactivateLicenseKey(ctx, await scopeOf(ctx, 'read'), args, systemClock()) }),
  }),
}));
