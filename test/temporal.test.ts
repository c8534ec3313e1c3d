import { randomUUID } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import { Client, Connection } from '@temporalio/client';

import { findTemporalCli } from '../src/temporal/temporal-cli-binary.js';
import { devServerPaths } from '../src/temporal/dev-server.js';
import type { HealthReport } from '../src/platform/activities.js';
import type { platformHealthCheck } from '../workflows/platform-health-check.js';
import { ownTaskQueueEnv, startServerProcess, startWorkerProcess, type StartedProcess, type ServerProcess } from './support/processes.js';

// Starting servers with their own dev server takes seconds each; more on a busy 2-core machine.
const SLOW = 180_000;

const DEV_SERVER_LINE = /Temporal dev server at (\S+) \(namespace default\), UI (http:\/\/\S+)/;

async function clientFor(address: string): Promise<Client> {
  return new Client({ connection: await Connection.connect({ address }) });
}

const healthCheck = (client: Client, taskQueue: string, workflowId = `platform-health-check-${randomUUID()}`) =>
  client.workflow.start<typeof platformHealthCheck>('platformHealthCheck', { taskQueue, workflowId });

function accepts(address: string): Promise<boolean> {
  const [host, port] = address.split(':');
  return new Promise((resolve) => {
    const socket = connect({ host, port: Number(port) });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function until(condition: () => Promise<boolean>, timeoutMs = 15_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await condition()) return true;
    await sleep(200);
  }
  return false;
}

describe('Temporal platform', () => {
  const suiteAddress = process.env.TEST_TEMPORAL_ADDRESS!;
  let suiteClient: Client;
  const started: Array<StartedProcess | ServerProcess> = [];
  const tempDirs: string[] = [];

  beforeAll(async () => {
    suiteClient = await clientFor(suiteAddress);
  });

  afterAll(async () => {
    for (const child of started) await child.stop('SIGKILL');
    await suiteClient.connection.close();
    for (const dir of tempDirs) await rm(dir, { recursive: true, force: true });
  });

  async function tempDir(): Promise<string> {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'commerce-temporal-'));
    tempDirs.push(dir);
    return dir;
  }

  test("the suite server's worker runs the health check workflow against the database", async () => {
    const handle = await healthCheck(suiteClient, 'commerce');
    const report: HealthReport = await handle.result();
    expect(report).toMatchObject({ taskQueue: 'commerce', workerHost: os.hostname() });
    expect(report.workerPid).not.toBe(process.pid);
    expect(report.databaseMs).toBeGreaterThanOrEqual(0);
    const { events } = await handle.fetchHistory();
    expect(events?.some((event) => event.activityTaskCompletedEventAttributes)).toBe(true);
    expect((await handle.describe()).status.name).toBe('COMPLETED');
  });

  test('with WORKER_IN_PROCESS=false the server runs no worker; `npm run worker` runs the workflows', async () => {
    const env = ownTaskQueueEnv('commerce');
    const taskQueue = env.TEMPORAL_TASK_QUEUE!;
    const server = await startServerProcess({ ...env, WORKER_IN_PROCESS: 'false' });
    started.push(server);
    expect(server.output()).toContain(`No Temporal worker in this process (WORKER_IN_PROCESS=false): run \`npm run worker\` for task queue ${taskQueue}`);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);

    const handle = await healthCheck(suiteClient, taskQueue);
    await sleep(2000);
    // Nobody polls the queue yet: not even the first workflow task has started.
    expect((await handle.describe()).status.name).toBe('RUNNING');
    const { events } = await handle.fetchHistory();
    expect(events?.some((event) => event.workflowTaskStartedEventAttributes)).toBe(false);

    const worker = await startWorkerProcess(env);
    started.push(worker);
    expect(worker.ready[1]).toBe(taskQueue);
    expect(worker.ready[2]).toBe(suiteAddress);
    const report = await handle.result();
    expect(report).toMatchObject({ taskQueue, workerPid: worker.child.pid });

    expect(await worker.stop()).toBe(0);
    expect(await server.stop()).toBe(0);
  }, SLOW);

  test('without TEMPORAL_ADDRESS the server starts a dev server in DATA_DIR that keeps history across restarts', async () => {
    const dataDir = await tempDir();
    const env = { DATA_DIR: dataDir, TEMPORAL_ADDRESS: '' };
    const first = await startServerProcess(env);
    started.push(first);
    const [, address, uiUrl] = DEV_SERVER_LINE.exec(first.output())!;
    expect(address).toMatch(/^127\.0\.0\.1:\d+$/);
    expect((await fetch(uiUrl!)).status).toBe(200);
    expect(JSON.parse(await readFile(devServerPaths(dataDir).lockFile, 'utf8'))).toMatchObject({ pid: first.child.pid });

    const client = await clientFor(address!);
    const workflowId = `platform-health-check-${randomUUID()}`;
    const report = await (await healthCheck(client, 'commerce', workflowId)).result();
    // Executed by the server process itself: its in-process worker.
    expect(report.workerPid).toBe(first.child.pid);
    await client.connection.close();

    // A second process on the same DATA_DIR reuses the running dev server.
    const worker = await startWorkerProcess(env);
    expect(worker.ready[2]).toBe(address);
    expect(await worker.stop()).toBe(0);
    expect(await accepts(address!)).toBe(true);

    // SIGTERM stops the dev server with the server and releases the lock.
    expect(await first.stop()).toBe(0);
    expect(await until(async () => !(await accepts(address!)))).toBe(true);
    await expect(readFile(devServerPaths(dataDir).lockFile)).rejects.toThrow(/ENOENT/);

    const second = await startServerProcess(env);
    started.push(second);
    const [, secondAddress] = DEV_SERVER_LINE.exec(second.output())!;
    const secondClient = await clientFor(secondAddress!);
    const earlier = await secondClient.workflow.getHandle(workflowId).describe();
    expect(earlier.status.name).toBe('COMPLETED');
    const listed: string[] = [];
    for await (const execution of secondClient.workflow.list({ query: `WorkflowType = 'platformHealthCheck'` })) listed.push(execution.workflowId);
    expect(listed).toContain(workflowId);
    await secondClient.connection.close();

    // What docs/operations.md ("Reading a workflow's history") tells operators to run.
    const cli = (await findTemporalCli())!;
    const list = spawnSync(cli, ['workflow', 'list', '--address', secondAddress!, '--query', `WorkflowId = '${workflowId}'`], { encoding: 'utf8' });
    expect(list.status).toBe(0);
    expect(list.stdout).toContain(workflowId);
    const show = spawnSync(cli, ['workflow', 'show', '--address', secondAddress!, '--workflow-id', workflowId], { encoding: 'utf8' });
    expect(show.status).toBe(0);
    expect(show.stdout).toContain('ActivityTaskCompleted');

    // The dev server dies with its owner even when the owner is killed outright.
    await second.stop('SIGKILL');
    expect(await until(async () => !(await accepts(secondAddress!)))).toBe(true);
  }, SLOW);

  test('a server whose dev server dies stops with an error instead of running without workflows', async () => {
    const dataDir = await tempDir();
    const server = await startServerProcess({ DATA_DIR: dataDir, TEMPORAL_ADDRESS: '' });
    started.push(server);
    const cli = (await findTemporalCli())!;
    // The dev server itself (not the shell that supervises it), as if it crashed.
    const found = spawnSync('pgrep', ['-f', `^${cli} server start-dev --db-filename ${devServerPaths(dataDir).dbFile}`], { encoding: 'utf8' });
    const pids = found.stdout.trim().split('\n').filter(Boolean).map(Number);
    expect(pids).toHaveLength(1);
    const exited = new Promise<number | null>((resolve) => server.child.once('exit', resolve));
    process.kill(pids[0]!, 'SIGKILL');
    expect(await exited).toBe(1);
    expect(server.output()).toContain('Fatal: the Temporal dev server exited');
  }, SLOW);

  describe('finding the temporal CLI', () => {
    const saved = { TEMPORAL_CLI_PATH: process.env.TEMPORAL_CLI_PATH, PATH: process.env.PATH };
    afterEach(() => {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    });

    async function fakeCli(): Promise<string> {
      const dir = await tempDir();
      const file = path.join(dir, 'temporal');
      await writeFile(file, '#!/bin/sh\necho fake\n');
      await chmod(file, 0o755);
      return file;
    }

    test('TEMPORAL_CLI_PATH comes first and must name an executable', async () => {
      const fake = await fakeCli();
      process.env.TEMPORAL_CLI_PATH = fake;
      await expect(findTemporalCli()).resolves.toBe(fake);
      process.env.TEMPORAL_CLI_PATH = path.join(path.dirname(fake), 'missing');
      await expect(findTemporalCli()).rejects.toThrow(/TEMPORAL_CLI_PATH=.*missing is not an executable file/);
    });

    test('PATH comes before Go’s bin folder', async () => {
      delete process.env.TEMPORAL_CLI_PATH;
      const fake = await fakeCli();
      process.env.PATH = `${path.dirname(fake)}${path.delimiter}${saved.PATH ?? ''}`;
      await expect(findTemporalCli()).resolves.toBe(fake);
    });
  });
});
