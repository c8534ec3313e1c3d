// The payments domain's door: what other domains and the processes may use of it
// (docs/decisions.md "One door per domain"). Everything else in src/payments is private to it.

/** The checkout and the subscriptions start a payment and settle its charge by the payments' state machine. */
export { startPayment, paymentNextAction, paymentExpiryMsFromEnv, processorKeyWindowMsFromEnv } from './payment-flow.js';
export { applyRecordedCharge, type ChargeOutcome, type RecordedCharge } from './charge-outcomes.js';
export {
  markPaymentCancelled,
  markPaymentFailed,
  markPaymentPaid,
  markPaymentUnpaid,
  PaymentTransitionRefused,
  recordCharge,
  recordChargeIfAbsent,
  recordRetryingPaymentFailure,
} from './transitions.js';
/** Reactions of other domains: a payment paid, a renewal paid (in its transaction), a charge's outcome, a subscription's first payment, a stranded charge, the processor's refund events. */
export { notifyPaymentPaid, onChargeOutcome, onPaymentPaid, type PaidPayment, type RoutedPayment } from './payment-hooks.js';
export { onRenewalPaid } from './renewal-paid-hook.js';
export { handleSubscriptionPayments, type SubscriptionPaymentHandler } from './first-payment-hook.js';
/** The invoices issue a payment's invoice in the transaction that makes it PAID. */
export { onPaymentPaidInTransaction } from './transaction-hooks.js';
export { giveBackStrandedCharge, onStrandedCharge, type StrandedChargeHandler } from './ended-payments.js';
export { onProcessorRefundEvents, type RefundEventHandler } from './processor-callbacks.js';
/** Refund and subscription events carry the payment as the payment events show it. */
export { events as paymentEvents, paymentEventData } from './events.js';
/** The processor port and its errors: the checkout, refunds, subscriptions and card sessions charge and refund through it. */
export {
  CardDeclined,
  InvalidChargeState,
  InvalidProcessorRequest,
  ProcessorError,
  ProcessorUnavailable,
  type CardDetails,
  type PaymentProcessor,
  type ProcessorName,
  type SetupResult,
} from './processors/processor.js';
/** The reconciliation reads the processor's books and repairs through the webhooks' own code. */
export type { ProcessorChargeRecord, ProcessorEvent, ProcessorRefundRecord, RecordWindow } from './processors/processor.js';
export { handleProcessorEvents } from './processor-callbacks.js';
export { ENDED_OTHERWISE } from './ended-payments.js';
export { capabilitiesOf, createPaymentProcessor, paymentProcessorConfigFromEnv, processorFor } from './processors/index.js';
/** The checkout and card sessions take cards the same way: the source, the test cards, the browser form. */
export { checkCardSource, type CardSource } from './card-source.js';
export { checkCard, DECLINE_MESSAGES } from './processors/test-cards.js';
export { browserCards, CARD_FORM_SCRIPT, cardInputs, cardScripts } from './browser-cards.js';
/** Subscriptions' test helpers save a test card as the payments' do. */
export { saveTestPaymentMethod } from './test-helpers.js';
/** The other domains' GraphQL types link to payments and show the card step. */
export { Payment } from './types.js';
/** The invoices add the payment's `invoice` to its details. */
export { PaymentDetails } from './types.js';
export { CardNextAction, CheckoutCard } from './card-types.js';
