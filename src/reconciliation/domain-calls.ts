// Everything the reconciliation takes from other domains, in one place: the processors' books
// (their list APIs behind the processor interface), and the code the processors' webhooks run,
// which applies every repair, so that a repair is exactly what the missed webhook would have done.
// Nothing else in src/reconciliation imports another domain.
export { createPaymentProcessor, ENDED_OTHERWISE, handleProcessorEvents, paymentProcessorConfigFromEnv } from '../payments/index.js';
export type { PaymentProcessor, ProcessorChargeRecord, ProcessorEvent, ProcessorName, ProcessorRefundRecord, RecordWindow } from '../payments/index.js';
export { RefundNotRecordedYet, STRANDED_REASON } from '../refunds/index.js';
