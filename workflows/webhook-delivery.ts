import { proxyActivities, sleep } from '@temporalio/workflow';

import type { WebhookActivities } from '../src/webhooks/activities.js';

/** Tries after the first one (spec, Limits: 5 retries about 5 minutes apart). */
export const WEBHOOK_RETRIES = 5;

export interface WebhookDeliveryInput {
  eventId: string;
  webhookId: string;
  /** Pause between tries; part of the input so that replays see the value the run started with. */
  retryIntervalMs: number;
  /** Time the endpoint has to answer one try. */
  timeoutMs: number;
}

export type WebhookDeliveryResult = 'delivered' | 'exhausted' | 'skipped';

/**
 * One event to one webhook (workflow id webhook-delivery-<eventId>-<webhookId>): up to six tries,
 * each an attemptDelivery activity that sends, records the try and, when the try ends the
 * delivery, updates the webhook's failure streak in the same transaction.
 */
export async function webhookDelivery(input: WebhookDeliveryInput): Promise<WebhookDeliveryResult> {
  const { attemptDelivery } = proxyActivities<WebhookActivities>({
    // The endpoint's time plus the database work around the request.
    startToCloseTimeout: input.timeoutMs + 30_000,
    // Only infrastructure errors (database, worker crash) fail the activity: an endpoint's failure
    // is a result. Retrying without limit is safe because a recorded try is never sent again.
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
  });
  const { eventId, webhookId, timeoutMs } = input;
  for (let sequence = 0; sequence <= WEBHOOK_RETRIES; sequence += 1) {
    if (sequence > 0) await sleep(input.retryIntervalMs);
    const { outcome } = await attemptDelivery({ eventId, webhookId, sequence, lastTry: sequence === WEBHOOK_RETRIES, timeoutMs });
    if (outcome !== 'failed') return outcome;
  }
  return 'exhausted';
}
