import { Client, Connection } from '@temporalio/client';

// The suite's Temporal dev server seen from a test: the positive markers a test waits for before
// it checks that something did not happen (a workflow closed, a signal handled), instead of a
// fixed sleep a loaded machine can outlast.

let connection: Promise<Connection> | undefined;
/** A client on the suite's Temporal dev server, shared by a test file and closed after it. */
export const suiteClient = async () => new Client({ connection: await (connection ??= Connection.connect({ address: process.env.TEST_TEMPORAL_ADDRESS! })) });
afterAll(async () => {
  await (await connection)?.close();
  connection = undefined;
});

/** Waits until the workflow's latest run has closed (completed, failed, cancelled, terminated) and returns how. */
export async function workflowClosed(workflowId: string, timeoutMs = 60_000): Promise<string> {
  const handle = (await suiteClient()).workflow.getHandle(workflowId);
  for (const deadline = Date.now() + timeoutMs; ; await new Promise((resolve) => setTimeout(resolve, 100))) {
    const { status } = await handle.describe();
    if (status.name !== 'RUNNING') return status.name;
    if (Date.now() > deadline) throw new Error(`workflow ${workflowId} still running after ${timeoutMs} ms`);
  }
}

/** How many signals named `name` the workflow's latest run has received so far. */
export async function signalsReceived(workflowId: string, name: string): Promise<number> {
  const events = (await (await suiteClient()).workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  return events.filter((event) => event.workflowExecutionSignaledEventAttributes?.signalName === name).length;
}

/** The arguments of the updates named `name` the workflow's latest run accepted, in order (JSON payloads decoded). */
export async function acceptedUpdates(workflowId: string, name: string): Promise<unknown[][]> {
  const { events } = await (await suiteClient()).workflow.getHandle(workflowId).fetchHistory();
  return (events ?? []).flatMap((event) => {
    const request = event.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest;
    if (request?.input?.name !== name) return [];
    return [(request.input.args?.payloads ?? []).map((payload) => JSON.parse(Buffer.from(payload.data!).toString('utf8')) as unknown)];
  });
}
