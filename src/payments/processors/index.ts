import type { PrismaClient } from '../../generated/prisma/client.js';
import type {
  ChargeRequest,
  ChargeResult,
  DisputeInfo,
  NextAction,
  PaymentProcessor,
  ProcessorCapabilities,
  ProcessorEvent,
  ProcessorChargeRecord,
  ProcessorName,
  ProcessorRefundRecord,
  RecordWindow,
  RefundRequest,
  RefundResult,
  WebhookHeaders,
  SetupRequest,
  SetupResult,
} from './processor.js';
import { SANDBOX_CAPABILITIES, SandboxProcessor } from './sandbox.js';
import { STRIPE_CAPABILITIES } from './stripe-capabilities.js';
import type { StripeProcessorConfig } from './stripe.js';

// Which processor the service uses. Read from the environment here rather than in src/config.ts:
// the choice decides which other variables are required, and the Stripe secrets stay out of the
// process-wide config object (nothing here is ever logged).

export type PaymentProcessorConfig =
  | { processor: 'sandbox' }
  | { processor: 'stripe'; secretKey: string; webhookSecret: string; apiBase?: string };

export interface PaymentProcessorDeps {
  prisma: PrismaClient;
  now?: () => Date;
}

/** PAYMENT_PROCESSOR (sandbox by default, or stripe with STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET and optionally STRIPE_API_BASE). */
export function paymentProcessorConfigFromEnv(env: NodeJS.ProcessEnv = process.env): PaymentProcessorConfig {
  const processor = env.PAYMENT_PROCESSOR || 'sandbox';
  if (processor === 'sandbox') return { processor };
  if (processor !== 'stripe') throw new Error(`PAYMENT_PROCESSOR must be sandbox or stripe, not ${JSON.stringify(processor)}`);
  const secretKey = env.STRIPE_SECRET_KEY;
  const webhookSecret = env.STRIPE_WEBHOOK_SECRET;
  if (!secretKey || !/^(sk|rk)_(test|live)_/.test(secretKey)) throw new Error('PAYMENT_PROCESSOR=stripe needs STRIPE_SECRET_KEY (sk_test_… or sk_live_…)');
  if (!webhookSecret) throw new Error('PAYMENT_PROCESSOR=stripe needs STRIPE_WEBHOOK_SECRET (whsec_…), the signing secret of the webhook endpoint');
  const apiBase = env.STRIPE_API_BASE || undefined;
  if (apiBase && !/^https?:\/\/[^/]+\/?$/.test(apiBase)) throw new Error('STRIPE_API_BASE must be an http(s) origin such as http://127.0.0.1:12111');
  return { processor, secretKey, webhookSecret, apiBase };
}

export function createPaymentProcessor(config: PaymentProcessorConfig, deps: PaymentProcessorDeps): PaymentProcessor {
  if (config.processor === 'stripe') return new LazyStripeProcessor(config, deps.now);
  return new SandboxProcessor(deps);
}

/**
 * The Stripe adapter, its module (and with it the Stripe SDK, about 35 MB of memory) imported
 * only in a service that uses Stripe: the import starts when the processor is created and each
 * call awaits it. Every call of the interface is asynchronous already, so nothing else changes.
 */
class LazyStripeProcessor implements PaymentProcessor {
  readonly name = 'stripe';
  readonly capabilities = STRIPE_CAPABILITIES;
  private loading: Promise<PaymentProcessor> | undefined;

  constructor(
    private readonly config: StripeProcessorConfig,
    private readonly now?: () => Date,
  ) {
    // Started now, so the first charge does not wait for it; a failure is thrown by that call.
    this.processor().catch(() => undefined);
  }

  private processor(): Promise<PaymentProcessor> {
    this.loading ??= import('./stripe.js').then(
      ({ StripeProcessor }) => new StripeProcessor(this.config, this.now),
      (error: unknown) => {
        // Tried again by the next call.
        this.loading = undefined;
        throw error;
      },
    );
    return this.loading;
  }

  async createCharge(request: ChargeRequest): Promise<ChargeResult> {
    return (await this.processor()).createCharge(request);
  }

  async setupPaymentMethod(request: SetupRequest): Promise<SetupResult> {
    return (await this.processor()).setupPaymentMethod(request);
  }

  async nextAction(chargeId: string): Promise<NextAction | null> {
    return (await this.processor()).nextAction(chargeId);
  }

  async setupState(setupId: string): Promise<SetupResult> {
    return (await this.processor()).setupState(setupId);
  }

  async cancelCharge(chargeId: string): Promise<void> {
    return (await this.processor()).cancelCharge(chargeId);
  }

  async refund(request: RefundRequest): Promise<RefundResult> {
    return (await this.processor()).refund(request);
  }

  async disputeState(chargeId: string): Promise<DisputeInfo | null> {
    return (await this.processor()).disputeState(chargeId);
  }

  async parseWebhook(rawBody: string | Buffer, headers: WebhookHeaders): Promise<ProcessorEvent[]> {
    return (await this.processor()).parseWebhook(rawBody, headers);
  }

  async *listCharges(window: RecordWindow): AsyncIterable<ProcessorChargeRecord> {
    yield* (await this.processor()).listCharges(window);
  }

  async *listRefunds(window: RecordWindow): AsyncIterable<ProcessorRefundRecord> {
    yield* (await this.processor()).listRefunds(window);
  }
}

/** What a processor takes, known without creating it (a payment's own processor may not be today's PAYMENT_PROCESSOR). */
export const capabilitiesOf = (name: ProcessorName): ProcessorCapabilities => (name === 'stripe' ? STRIPE_CAPABILITIES : SANDBOX_CAPABILITIES);

/**
 * The processor that made a payment's charge, whatever PAYMENT_PROCESSOR says today: the
 * configured one, or the sandbox (every deployment has it); null for another one, whose
 * credentials this deployment does not have.
 */
export function processorFor(name: ProcessorName, configured: PaymentProcessor, deps: PaymentProcessorDeps): PaymentProcessor | null {
  if (configured.name === name) return configured;
  return name === 'sandbox' ? new SandboxProcessor(deps) : null;
}
