// The sandbox's webhook deliveries. A real processor POSTs its events to
// /processor-webhooks/{processor}; the sandbox keeps them in its outbox (SandboxEvent), and this
// relay hands them, signed, to the same parseWebhook and handleProcessorEvents, about once a
// second: so a charge the sandbox settles or disputes on its own (4000000000000259) reaches the
// payment as Stripe's webhook would. An event is acknowledged only after it was applied; one that
// fails stays in the outbox and comes back at the next round (the handlers are idempotent, so a
// second delivery, from here or from another process on the same database, changes nothing).
// It runs in worker processes, beside the webhook dispatcher.
import { startPolling } from '../core/polling.js';
import type { ActivityDependencies, BackgroundTask } from '../domain-module.js';
import type { PrismaClient } from '../generated/prisma/client.js';
import { logger } from '../logger.js';
import type { TemporalConnection } from '../temporal/client.js';
import { handleProcessorEvents } from './processor-callbacks.js';
import { createPaymentProcessor, paymentProcessorConfigFromEnv } from './processors/index.js';
import { SandboxProcessor } from './processors/sandbox.js';
import type { SignedWebhook } from './processors/sandbox-events.js';

const log = logger.child({ component: 'sandbox-webhook-relay' });

/** SANDBOX_WEBHOOK_DELIVERY: `false` holds the sandbox's events in its outbox (tests that read it); delivered by default. */
export const sandboxWebhookDeliveryFromEnv = (env: NodeJS.ProcessEnv = process.env) => env.SANDBOX_WEBHOOK_DELIVERY !== 'false';

/** A signed sandbox webhook through the path of a real processor's: parseWebhook (signature checked), then handleProcessorEvents. */
export async function applySandboxWebhook(prisma: PrismaClient, temporal: TemporalConnection, sandbox: SandboxProcessor, webhook: SignedWebhook): Promise<void> {
  await handleProcessorEvents(prisma, temporal, await sandbox.parseWebhook(webhook.rawBody, webhook.headers));
}

/** One round: every pending event, oldest first; returns how many were applied. */
export async function relaySandboxWebhooks(prisma: PrismaClient, temporal: TemporalConnection, sandbox: SandboxProcessor): Promise<number> {
  let applied = 0;
  for (const webhook of await sandbox.pendingWebhooks(100)) {
    await applySandboxWebhook(prisma, temporal, sandbox, webhook);
    await sandbox.acknowledgeWebhook(webhook.eventId);
    applied += 1;
  }
  return applied;
}

/** The relay of a worker process: one when the processor is the sandbox and delivery is on (SANDBOX_WEBHOOK_DELIVERY). */
export function startSandboxWebhookRelays({ prisma, temporal }: ActivityDependencies): BackgroundTask[] {
  const processor = createPaymentProcessor(paymentProcessorConfigFromEnv(), { prisma });
  return processor instanceof SandboxProcessor && sandboxWebhookDeliveryFromEnv() ? [startSandboxWebhookRelay(prisma, temporal, processor)] : [];
}

export function startSandboxWebhookRelay(prisma: PrismaClient, temporal: TemporalConnection, sandbox: SandboxProcessor, intervalMs = 1000): BackgroundTask {
  return startPolling(() => relaySandboxWebhooks(prisma, temporal, sandbox), { intervalMs, log, failure: 'sandbox webhook delivery failed' });
}
