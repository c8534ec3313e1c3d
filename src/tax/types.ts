// The tax calculation's GraphQL face: Mutation.calculateTax (POST /v0/tax/calculate).
import { builder } from '../graphql/builder.js';
import { ProductTypeEnum } from '../products/index.js';
import type { TaxComponent } from './calculate.js';
import { calculateTaxFor, type TaxQuote } from './service.js';

const TaxTypeEnum = builder.enumType('TaxType', {
  values: ['VAT', 'GST', 'HST', 'PST', 'QST', 'SALES_TAX', 'SERVICE_TAX'] as const,
  description:
    'VAT (EU, UK, NO, CH, ...), GST (AU, NZ, SG, IN, Canada federal, ...), HST (harmonized Canadian provinces), PST or QST (Canadian provinces), ' +
    'SALES_TAX (US states, Puerto Rico, Pakistan), SERVICE_TAX (Malaysia\'s service tax on digital services)',
});

export const TaxReasonEnum = builder.enumType('TaxReason', {
  values: {
    not_registered: { description: 'The workspace is not registered for tax there (its taxRegistrations): none collected, or only the taxes it is registered for' },
    no_data: { description: 'The rate data does not know the location at that date: sold without tax (the workspace setting noTaxData)' },
    reverse_charge: { description: 'A business buyer with a valid EU or UK VAT number accounts for the VAT itself' },
    not_taxable: { description: 'The product is not taxed there (a US state that does not tax digital goods; gift cards, taxed when redeemed)' },
    no_tax: { description: 'The jurisdiction levies no VAT, GST or sales tax' },
  } as const,
  description: 'Why less tax than the location\'s, or none, is charged; null when it is charged in full',
});

export const TaxComponentRef = builder.objectRef<TaxComponent>('TaxComponent').implement({
  description: 'One tax of the calculation (Canada: the GST and the province\'s PST or QST)',
  fields: (t) => ({
    type: t.field({ type: TaxTypeEnum, resolve: (c) => c.type }),
    rate: t.exposeFloat('rate', { description: '0.19 for 19%' }),
    jurisdiction: t.exposeString('jurisdiction', { description: 'DE, GB, CA, CA-QC, US-WA' }),
    amount: t.exposeInt('amount', { description: 'Minor units' }),
  }),
});

const TaxCalculationRef = builder.objectRef<TaxQuote>('TaxCalculation').implement({
  fields: (t) => ({
    object: t.string({ resolve: () => 'tax_calculation' }),
    productId: t.exposeID('productId'),
    offerId: t.exposeID('offerId', { nullable: true }),
    productType: t.field({ type: ProductTypeEnum, resolve: (c) => c.productType }),
    currency: t.exposeString('currency'),
    country: t.string({ resolve: (c) => c.location.country }),
    state: t.string({ nullable: true, description: 'US state or Canadian province; null elsewhere', resolve: (c) => c.location.state }),
    postalCode: t.string({ nullable: true, resolve: (c) => c.location.postalCode }),
    taxId: t.exposeString('taxId', { nullable: true, description: 'The VAT number sent, as checked (upper case, without separators)' }),
    priceIncludesTax: t.exposeBoolean('priceIncludesTax', { description: 'Whether amount includes the tax (the workspace setting pricesIncludeTax unless sent)' }),
    amount: t.exposeInt('amount', { description: 'The amount calculated on, minor units' }),
    netAmount: t.exposeInt('netAmount', { description: 'Without tax, minor units' }),
    taxAmount: t.exposeInt('taxAmount', { description: 'Minor units, rounded half up to the currency\'s smallest unit' }),
    totalAmount: t.exposeInt('totalAmount', { description: 'netAmount + taxAmount: what the buyer pays' }),
    rate: t.exposeFloat('rate', { description: 'The sum of the components\' rates' }),
    taxType: t.field({ type: TaxTypeEnum, nullable: true, description: 'The main tax; null when none is charged', resolve: (c) => c.taxType }),
    jurisdiction: t.exposeString('jurisdiction'),
    components: t.field({ type: [TaxComponentRef], resolve: (c) => c.components }),
    reverseCharge: t.exposeBoolean('reverseCharge', { description: 'A business buyer with a valid EU or UK VAT number accounts for the VAT itself' }),
    taxReason: t.field({ type: TaxReasonEnum, nullable: true, description: 'Why less tax than the location\'s, or none, is charged (null when it is charged in full)', resolve: (c) => c.taxReason }),
    exemption: t.exposeString('exemption', { nullable: true, description: 'taxReason in words (null with it)' }),
  }),
});

const TaxCalculationPayload = builder.simpleObject('TaxCalculationPayload', { fields: (t) => ({ tax: t.field({ type: TaxCalculationRef }) }) });

builder.mutationFields((t) => ({
  calculateTax: t.field({
    type: TaxCalculationPayload,
    description:
      'The tax on a product or offer for a buyer\'s location, before purchase, where the workspace is registered (taxRegistrations). 400 for malformed input, 422 when tax cannot be determined for the country, state and postal code ' +
      '(a US or Canadian address without a state, an unknown state, a postal code not in that state, a country or date the rate data does not know), 404 for an unknown product or offer',
    args: {
      productId: t.arg({ type: 'UUID', description: 'The product sold (with amount and currency); or send offerId' }),
      offerId: t.arg({ type: 'UUID', description: 'The offer sold: its product, price and currency (amount overrides the price)' }),
      amount: t.arg.int({ description: 'Minor units; default the offer\'s price' }),
      currency: t.arg.string({ description: 'Default the offer\'s currency' }),
      country: t.arg.string({ required: true, description: 'The buyer\'s two-letter ISO 3166-1 country code' }),
      state: t.arg.string({ description: 'Required in the US and Canada: the state or province code (WA, QC)' }),
      postalCode: t.arg.string({ description: 'Checked against the country\'s format and, in the US and Canada, against the state' }),
      taxId: t.arg.string({ description: 'A business buyer\'s EU or UK VAT number, checked with its country\'s check digits: reverse charge when valid (400 otherwise)' }),
      priceIncludesTax: t.arg.boolean({ description: 'Default the workspace setting pricesIncludeTax' }),
    },
    resolve: async (_root, args, ctx) => ({ tax: await calculateTaxFor(ctx.prisma, await ctx.principal('write'), args) }),
  }),
}));
