import type { ProcessorCapabilities } from './processor.js';

/**
 * What the Stripe adapter takes, in a module of its own so that it is known without loading the
 * adapter and the Stripe SDK (processors/index.ts loads them only when Stripe is used). Only cards
 * go through the adapter; PayPal and transfers would need redirects and instructions.
 */
export const STRIPE_CAPABILITIES: ProcessorCapabilities = {
  methods: ['card'],
  refunds: { card: true, paypal: false, manual: false },
  cancel: { card: true, paypal: false, manual: false },
  savedPaymentMethods: true,
};
