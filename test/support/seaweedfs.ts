import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';

import { EXE, findGo, firstExecutable, goBinDirs, goBuildFromModule, onPath, stderrLog, type Log } from '../../src/go-programs.js';

// SeaweedFS (Apache-2.0), a real S3-compatible server, for the tests of the S3 storage driver.
// Only tests need it, so it lives here rather than in src/. Its `weed` program is on neither npm
// nor Debian: found as stripe-mock is (SEAWEEDFS_PATH, PATH, Go's bin folders), else built from
// its Go module into Go's bin folder when Go is installed (`go install` refuses the module: its
// go.mod has replace directives; src/go-programs.ts). .ci/run provisions it before the suite.

export const SEAWEEDFS_MODULE = 'github.com/seaweedfs/seaweedfs';
// The pseudo-version the Go module proxy serves (SeaweedFS tags are not Go module versions).
export const SEAWEEDFS_VERSION = 'v0.0.0-20261109003541-7506e5f91cd6';
// A cold Go module cache downloads and builds several hundred packages first.
export const SEAWEEDFS_PROVISION_TIMEOUT_MS = 20 * 60_000;
const START_TIMEOUT_MS = 60_000;

export const SEAWEEDFS_MISSING =
  `SeaweedFS (weed) is not installed and there is no Go to build it: install Go (https://go.dev/dl/) and run ` +
  '`node scripts/run.mjs tsx test/support/provision-seaweedfs.ts`, or set SEAWEEDFS_PATH to a weed executable.';

/** The `weed` executable, built with Go when absent; undefined when this machine has no Go. */
export async function findOrProvisionSeaweedfs(log: Log = stderrLog): Promise<string | undefined> {
  if (process.env.SEAWEEDFS_PATH) return process.env.SEAWEEDFS_PATH;
  const go = await findGo();
  const binDirs = await goBinDirs(go);
  const found = await firstExecutable([...onPath(`weed${EXE}`), ...binDirs.map((dir) => path.join(dir, `weed${EXE}`))]);
  if (found || !go) return found;
  const output = path.join(binDirs[0]!, `weed${EXE}`);
  await mkdir(binDirs[0]!, { recursive: true });
  await goBuildFromModule(go, SEAWEEDFS_MODULE, SEAWEEDFS_VERSION, 'weed', output, 'SeaweedFS (weed)', log);
  return firstExecutable([output]);
}

export interface SeaweedS3 {
  /** e.g. http://127.0.0.1:40613 */
  endpoint: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** A client with the server's credentials (path-style, as SeaweedFS wants). */
  client: S3Client;
  /** The S3_* variables of a service storing its files in `bucket`. */
  env(bucket: string): Record<string, string>;
  createBucket(bucket: string): Promise<void>;
  /** SIGKILLs the server and starts it again on the same ports and data; resolves once it answers again. */
  restart(): Promise<void>;
  /** The running server's process id (it changes with a restart). */
  pid(): number;
  output(): string;
  stop(): Promise<void>;
}

/** Free TCP ports of 127.0.0.1, all held open until every one is known (so none is handed out twice). */
async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from({ length: count }, () => new Promise<net.Server>((resolve, reject) => {
      const server = net.createServer();
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve(server));
    })),
  );
  const ports = servers.map((server) => (server.address() as net.AddressInfo).port);
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  return ports;
}

/**
 * `weed server` with its master, volume server, filer and S3 gateway on free ports of 127.0.0.1,
 * data in a temporary folder, one identity with random credentials (no anonymous access), no
 * telemetry; resolves once the S3 gateway answers a signed request.
 */
export async function startSeaweedS3(executable: string): Promise<SeaweedS3> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'seaweedfs-'));
  const accessKeyId = `AK${randomBytes(9).toString('hex').toUpperCase()}`;
  const secretAccessKey = randomBytes(24).toString('base64url');
  const config = path.join(dir, 's3.json');
  await writeFile(config, JSON.stringify({ identities: [{ name: 'commerce', credentials: [{ accessKey: accessKeyId, secretKey: secretAccessKey }], actions: ['Admin', 'Read', 'List', 'Tagging', 'Write'] }] }));
  await mkdir(path.join(dir, 'data'));
  const [master, masterGrpc, volume, volumeGrpc, filer, filerGrpc, s3, s3Grpc] = await freePorts(8);
  const args = [
    '-logtostderr=true',
    'server',
    '-ip=127.0.0.1',
    '-ip.bind=127.0.0.1',
    `-dir=${path.join(dir, 'data')}`,
    '-master.telemetry=false',
    `-master.port=${master}`,
    `-master.port.grpc=${masterGrpc}`,
    // Small volumes: the test writes megabytes, not the default 30 GB volume's worth.
    '-master.volumeSizeLimitMB=64',
    '-volume.max=16',
    `-volume.port=${volume}`,
    `-volume.port.grpc=${volumeGrpc}`,
    '-filer',
    `-filer.port=${filer}`,
    `-filer.port.grpc=${filerGrpc}`,
    '-s3',
    `-s3.port=${s3}`,
    `-s3.port.grpc=${s3Grpc}`,
    '-s3.port.iceberg=0',
    '-s3.port.lance=0',
    `-s3.config=${config}`,
  ];
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
    if (output.length > 200_000) output = output.slice(-100_000);
  };
  let child!: ChildProcess;
  let exited!: Promise<never>;
  const spawnServer = () => {
    child = spawn(executable, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.on('data', collect);
    child.stderr!.on('data', collect);
    exited = new Promise<never>((_resolve, reject) => child.once('exit', (code, signal) => reject(new Error(`weed server exited with ${code ?? signal}:\n${output.slice(-5_000)}`))));
    exited.catch(() => undefined);
  };
  spawnServer();
  const killed = (signal: NodeJS.Signals) =>
    child.exitCode !== null || child.signalCode !== null
      ? Promise.resolve()
      : new Promise<void>((resolve) => {
          child.once('exit', () => resolve());
          child.kill(signal);
        });

  const endpoint = `http://127.0.0.1:${s3}`;
  const region = 'us-east-1';
  const client = new S3Client({ endpoint, region, forcePathStyle: true, credentials: { accessKeyId, secretAccessKey }, maxAttempts: 1 });
  const stop = async () => {
    client.destroy();
    await killed('SIGTERM');
    await rm(dir, { recursive: true, force: true });
  };

  // The gateway answers once the master, a volume server and the filer are up: a bucket made then
  // can take writes. Creating a bucket that exists already (a retry after a timeout) is fine too.
  const createBucket = async (bucket: string) => {
    const deadline = Date.now() + START_TIMEOUT_MS;
    for (;;) {
      try {
        await Promise.race([client.send(new CreateBucketCommand({ Bucket: bucket })), exited]);
        return;
      } catch (error) {
        const name = (error as Error).name;
        if (name === 'BucketAlreadyOwnedByYou' || name === 'BucketAlreadyExists') return;
        // Refused (a 4xx: a bad name, bad credentials) is final; not reachable yet or a 5xx is retried.
        const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode ?? 0;
        const refused = status >= 400 && status < 500;
        if (refused || child.exitCode !== null || Date.now() > deadline) throw new Error(`SeaweedFS did not create bucket ${bucket}: ${(error as Error).message}\n${output.slice(-5_000)}`, { cause: error });
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    }
  };
  try {
    await createBucket('ready');
  } catch (error) {
    await stop();
    throw error;
  }
  // Killed as a crash would (no goodbye to open connections), then started again on the same ports and data.
  const restart = async () => {
    await killed('SIGKILL');
    spawnServer();
    await createBucket('ready');
  };
  return {
    endpoint,
    region,
    accessKeyId,
    secretAccessKey,
    client,
    env: (bucket) => ({
      S3_BUCKET: bucket,
      S3_ENDPOINT: endpoint,
      S3_REGION: region,
      S3_ACCESS_KEY_ID: accessKeyId,
      S3_SECRET_ACCESS_KEY: secretAccessKey,
      S3_FORCE_PATH_STYLE: 'true',
    }),
    createBucket,
    restart,
    pid: () => child.pid!,
    output: () => output,
    stop,
  };
}
