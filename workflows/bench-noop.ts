/**
 * Does nothing, on purpose: `npm run bench:webhooks` starts and completes thousands of these to
 * measure the Temporal floor (the best workflows/s the same dev server and worker reach) that
 * webhook delivery is compared with. Not used by the service itself.
 */
export async function benchNoop(): Promise<void> {}
