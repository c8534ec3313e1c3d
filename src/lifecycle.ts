import { logger } from './logger.js';

/**
 * Handles SIGTERM and SIGINT from the moment it is called (a supervisor may signal as soon as the
 * process reports ready): runs the close function given to onStop once, then exits with 0, or
 * with 1 after fatal() or an unclean close. Before onStop, a signal exits at once; the children
 * started meanwhile (embedded database, Temporal dev server) follow on their own.
 */
export function shutdownHandler(): { onStop(close: () => Promise<void>): void; fatal(error: unknown): void } {
  let close: () => Promise<void> = async () => undefined;
  let stopping = false;
  async function stop(reason: string, failed: boolean) {
    if (stopping) return;
    stopping = true;
    logger.info({ reason }, 'shutting down');
    try {
      await close();
      process.exit(failed ? 1 : 0);
    } catch (error) {
      logger.error({ err: error }, 'unclean shutdown');
      process.exit(1);
    }
  }
  process.on('SIGTERM', () => void stop('SIGTERM', false));
  process.on('SIGINT', () => void stop('SIGINT', false));
  return {
    onStop(fn) {
      close = fn;
    },
    fatal(error) {
      logger.fatal({ err: error }, 'fatal error');
      console.error(`Fatal: ${error instanceof Error ? error.message : String(error)}`);
      void stop('fatal error', true);
    },
  };
}

/**
 * For a service run on its own (`npm run temporal:dev`, `npm run db:embedded`): keeps the process
 * running until it is signalled, or until the process that started it is gone (a test runner
 * that died before its teardown): then we are re-parented and stop like on SIGTERM.
 */
export function runUntilSignalledOrOrphaned(): void {
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) process.kill(process.pid, 'SIGTERM');
  }, 1000);
}
