// Everything the reconciliation takes from other domains, in one place: the processors' books
// (their list APIs behind the processor interface), and the code the processors' webhooks run,
// which applies every repair, so that a repair is exactly what the missed webhook would have done.
// Nothing else in src/reconciliation imports another domain.
export { handleProcessorEvents } from '../payments/processor-callbacks.js';
export { ENDED_OTHERWISE } from '../payments/ended-payments.js';
export { createPaymentProcessor, paymentProcessorConfigFromEnv } from '../payments/processors/index.js';
export type { PaymentProcessor, ProcessorChargeRecord, ProcessorEvent, ProcessorName, ProcessorRefundRecord, RecordWindow } from '../payments/processors/processor.js';
export { RefundNotRecordedYet } from '../refunds/processor-events.js';
export { STRANDED_REASON } from '../refunds/stranded.js';
