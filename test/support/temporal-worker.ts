import { randomUUID } from 'node:crypto';

import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';

import type { TemporalConnection } from '../../src/temporal/client.js';
import { bundleWorkflows } from '../../src/temporal/worker.js';

/**
 * A worker of a test file's own on the suite's Temporal dev server: a task queue of its own (the
 * suite server's worker never runs its workflows; `taskQueue` when an API process of the file's
 * own starts them there), the service's workflow bundle, and the activities the file gives, made
 * with the connection the worker's workflows are started on.
 */
export async function ownQueueWorker(name: string, activities: (temporal: TemporalConnection) => object, taskQueue = `${name}-${randomUUID()}`) {
  const address = process.env.TEST_TEMPORAL_ADDRESS!;
  const connection = await Connection.connect({ address });
  const temporal: TemporalConnection = {
    client: new Client({ connection }),
    namespace: 'default',
    address,
    taskQueue,
    connectionOptions: { address },
    failure: new Promise<never>(() => undefined),
    stop: () => connection.close(),
  };
  const workerConnection = await NativeConnection.connect({ address });
  const worker = await Worker.create({ connection: workerConnection, taskQueue: temporal.taskQueue, workflowBundle: await bundleWorkflows(), activities: activities(temporal) });
  const running = worker.run();
  return {
    temporal,
    async stop() {
      worker.shutdown();
      await running;
      await workerConnection.close();
      await connection.close();
    },
  };
}
