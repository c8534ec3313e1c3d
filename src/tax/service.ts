// POST /v0/tax/calculate: the calculation (./calculate.ts) for a product or offer of the scope.
// Checked in this order: the request's own values (400), the location (400 malformed, 422
// undeterminable), the product or offer (404), then whether the rate data knows the location
// (422); docs/decisions.md "Tax".
import { NotFound, ValidationFailed } from '../core/errors.js';
import { isMoney, MAX_MONEY } from '../core/money.js';
import { inScope, type Principal } from '../core/scope.js';
import { isCurrency } from '../reference/currencies.js';
import { systemClock, type Clock } from '../core/time.js';
import type { PrismaClient } from '../generated/prisma/client.js';
import { calculateTax, requireTaxData, type TaxCalculation } from './calculate.js';
import { checkTaxLocation } from './location.js';
import { taxRegistrations } from './registrations.js';
import { checkTaxId } from './vat-id.js';

export interface TaxRequest {
  productId?: string | null;
  offerId?: string | null;
  amount?: number | null;
  currency?: string | null;
  country: string;
  state?: string | null;
  postalCode?: string | null;
  taxId?: string | null;
  priceIncludesTax?: boolean | null;
}

export type TaxQuote = TaxCalculation & { productId: string; offerId: string | null };

/** What is sold: the offer's product, price and currency, or the product with the amount and currency sent. */
async function soldItem(prisma: PrismaClient, principal: Principal, request: TaxRequest) {
  const scope = inScope(principal);
  if (request.offerId) {
    const offer = await prisma.offer.findFirst({ where: { id: request.offerId, ...scope, archivedAt: null }, include: { product: { select: { id: true, type: true } } } });
    if (!offer) throw new NotFound('Offer');
    if (request.productId && request.productId !== offer.productId) throw new ValidationFailed(`offer ${offer.id} is not an offer of product ${request.productId}`);
    return { productId: offer.product.id, offerId: offer.id, productType: offer.product.type, amount: request.amount ?? offer.price, currency: request.currency ?? offer.currency, offerCurrency: offer.currency };
  }
  const product = await prisma.product.findFirst({ where: { id: request.productId!, ...scope, archivedAt: null }, select: { id: true, type: true } });
  if (!product) throw new NotFound('Product');
  return { productId: product.id, offerId: null, productType: product.type, amount: request.amount!, currency: request.currency!, offerCurrency: null };
}

/** The calculation at `now`'s rates, where the workspace is registered; 422 where the rate data does not know the location. */
export async function calculateTaxFor(prisma: PrismaClient, principal: Principal, request: TaxRequest, now: Clock = systemClock): Promise<TaxQuote> {
  if (!request.productId && !request.offerId) throw new ValidationFailed('Send productId or offerId');
  if (!request.offerId && (request.amount == null || request.currency == null)) throw new ValidationFailed('amount and currency are required with productId (an offer gives its own price and currency)');
  for (const name of ['amount', 'priceIncludesTax'] as const) if (request[name] === null) throw new ValidationFailed(`${name} cannot be null`);
  if (request.amount != null && !isMoney(request.amount)) throw new ValidationFailed(`amount must be whole minor units from 0 to ${MAX_MONEY}`);
  if (request.currency != null && !isCurrency(request.currency.trim().toUpperCase())) throw new ValidationFailed('currency must be a three-letter currency code of the list');
  const location = { country: request.country, state: request.state, postalCode: request.postalCode };
  checkTaxLocation(location);
  if (request.taxId?.trim()) checkTaxId(request.taxId);
  const item = await soldItem(prisma, principal, request);
  if (item.offerCurrency && item.currency.trim().toUpperCase() !== item.offerCurrency) throw new ValidationFailed(`currency ${item.currency} is not the offer's currency ${item.offerCurrency}`);
  const calculation = calculateTax({
    productType: item.productType,
    amount: item.amount,
    currency: item.currency,
    location,
    taxId: request.taxId,
    priceIncludesTax: request.priceIncludesTax ?? principal.settings.pricesIncludeTax,
    registrations: taxRegistrations(principal.settings.taxRegistrations),
    at: now(),
  });
  return { ...requireTaxData(calculation), productId: item.productId, offerId: item.offerId };
}
