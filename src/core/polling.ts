// A loop a worker process runs beside its activities (an outbox poller): a round at once, then
// one every intervalMs after the previous one ended, until stopped. A failed round is logged once
// per outage (the work stays due; the next round tries again).
import type { Logger } from 'pino';

export interface PollingTask {
  /** Stops polling and waits for the round in progress. */
  stop(): Promise<void>;
}

export function startPolling(round: () => Promise<unknown>, options: { intervalMs: number; log: Logger; failure: string }): PollingTask {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let failing = false;
  const poll = async () => {
    try {
      await round();
      if (failing) options.log.info(`${options.failure}: recovered`);
      failing = false;
    } catch (error) {
      if (!failing) options.log.error({ err: error }, `${options.failure}; retrying every round`);
      failing = true;
    }
    if (!stopped) timer = setTimeout(() => void (running = poll()), options.intervalMs);
  };
  let running = poll();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
