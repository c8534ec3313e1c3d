// `npm run bench:storage`: the three ways a download can leave an S3 bucket, side by side in one
// run on SeaweedFS (test/support/seaweedfs.ts): the hand-written socket reader the service used
// before issue 37 (bench/hand-written-s3-reader.ts), the AWS SDK's GetObject stream (the service's
// driver now) and a 302 to a presigned GetObject URL (S3_PRESIGNED_REDIRECT_SECONDS). Each behind
// the same bare node:http server (bench/bare-s3-server.ts). A BENCH_FILE_MB (10) MiB object,
// BENCH_DOWNLOADS (60) downloads CONCURRENCY at a time per round, BENCH_ROUNDS (3) alternating
// rounds: MB/s, CPU ms per MB of the server and of SeaweedFS, the server's RSS before, at its peak
// and its growth. Then a storage restart mid-download (SIGKILL, started again on the same data):
// what the client sees of a 64 MiB object, and how a resume (Range from the bytes it has) fares. Each figure is
// printed with the 1-minute load average when it was taken: the machine is shared.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import os from 'node:os';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { startProcess, type StartedProcess } from '../test/support/processes.js';
import { SEAWEEDFS_MISSING, findOrProvisionSeaweedfs, startSeaweedS3 } from '../test/support/seaweedfs.js';
import { cpuSeconds, inParallel, sampleMemory } from './support.js';

const FILE_BYTES = Number(process.env.BENCH_FILE_MB ?? 10) * 1_048_576;
const DOWNLOADS = Number(process.env.BENCH_DOWNLOADS ?? 60);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONCURRENCY = 20;
const SAMPLE_MS = 50;
const MODES = ['hand-written', 'sdk', 'redirect'] as const;
// The restart's object: larger than what the sockets between storage, server and client buffer, so the kill lands mid-object.
const RESTART_BYTES = 64 * 1_048_576;
const MB = FILE_BYTES / 1_048_576;

const load = () => os.loadavg()[0]!.toFixed(1);
// A connection per download: an idle kept-alive one may be closed by the server just as it is reused.
const agent = new http.Agent({ keepAlive: false, maxSockets: CONCURRENCY * 2 });

interface Got {
  status: number;
  bytes: Buffer[];
  received: number;
  /** The body ended as a complete message (not cut). */
  complete: boolean;
}

/** GETs `url` (following one redirect), keeping the bytes when asked; `onData` may pause the response. */
function get(url: string, { keep = false, range, onData }: { keep?: boolean; range?: string; onData?: (got: Got, response: http.IncomingMessage) => void } = {}): Promise<Got> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { agent, headers: range ? { range } : {} }, (response) => {
      if (response.statusCode === 302) {
        response.resume();
        return void get(response.headers.location!, { keep, range, onData }).then(resolve, reject);
      }
      const got: Got = { status: response.statusCode!, bytes: [], received: 0, complete: false };
      response.on('data', (chunk: Buffer) => {
        got.received += chunk.length;
        if (keep) got.bytes.push(chunk);
        onData?.(got, response);
      });
      response.on('end', () => resolve({ ...got, complete: response.complete }));
      response.on('error', () => resolve(got));
      response.on('aborted', () => resolve(got));
    });
    request.on('error', (error) => (request.destroyed ? undefined : reject(error)));
  });
}

interface Side {
  mode: (typeof MODES)[number];
  server: StartedProcess;
  url: string;
  rssBeforeMb: number;
  /** Whether the first download, read whole, had the object's bytes. */
  firstBytes?: string;
  rounds: { mbPerSecond: number; serverCpu: number; storageCpu: number; rssPeakMb: number; load: string }[];
}

const executable = await findOrProvisionSeaweedfs();
if (!executable) throw new Error(SEAWEEDFS_MISSING);
const seaweed = await startSeaweedS3(executable);
const sides: Side[] = [];
const stopLater: StartedProcess[] = [];
try {
  await seaweed.createBucket('bench');
  const key = `${randomUUID()}/${randomUUID()}`;
  const file = randomBytes(FILE_BYTES);
  const sha256 = createHash('sha256').update(file).digest('hex');
  await seaweed.client.send(new PutObjectCommand({ Bucket: 'bench', Key: key, Body: file }));
  const big = { key: `${randomUUID()}/${randomUUID()}`, bytes: randomBytes(RESTART_BYTES) };
  await seaweed.client.send(new PutObjectCommand({ Bucket: 'bench', Key: big.key, Body: big.bytes }));
  const serve = (mode: string, object: string, size: number) =>
    startProcess('bench/bare-s3-server.ts', { ...seaweed.env('bench'), BENCH_MODE: mode, BENCH_KEY: object, BENCH_SIZE: String(size) }, /listening on (http:\/\/\S+)/);
  const restartUrls = new Map<string, string>();
  for (const mode of MODES) {
    const server = await serve(mode, key, FILE_BYTES);
    sides.push({ mode, server, url: server.ready[1]!, rssBeforeMb: 0, rounds: [] });
    const bigServer = await serve(mode, big.key, RESTART_BYTES);
    stopLater.push(bigServer);
    restartUrls.set(mode, bigServer.ready[1]!);
  }
  for (const side of sides) {
    side.rssBeforeMb = sampleMemory(side.server.child.pid!).stop().rootRss;
    const first = await get(side.url, { keep: true });
    // Reported rather than thrown: a path that serves other bytes is a finding of the comparison.
    side.firstBytes = createHash('sha256').update(Buffer.concat(first.bytes)).digest('hex') === sha256 ? 'identical' : `DIFFERENT (${first.received} bytes)`;
  }

  for (let round = 1; round <= ROUNDS; round += 1) {
    for (const side of round % 2 ? sides : [...sides].reverse()) {
      const pid = side.server.child.pid!;
      const memory = sampleMemory(pid, SAMPLE_MS);
      const [serverBefore, storageBefore] = [cpuSeconds(pid), cpuSeconds(seaweed.pid())];
      const started = performance.now();
      await inParallel(DOWNLOADS, CONCURRENCY, async () => {
        const { received } = await get(side.url);
        if (received !== FILE_BYTES) throw new Error(`${side.mode}: ${received} bytes instead of ${FILE_BYTES}`);
      });
      const seconds = (performance.now() - started) / 1000;
      side.rounds.push({ mbPerSecond: (DOWNLOADS * MB) / seconds, serverCpu: cpuSeconds(pid) - serverBefore, storageCpu: cpuSeconds(seaweed.pid()) - storageBefore, rssPeakMb: memory.stop().rootRss, load: load() });
    }
    console.log(`round ${round}: ${sides.map((side) => `${side.mode} ${side.rounds.at(-1)!.mbPerSecond.toFixed(0)} MB/s (load ${side.rounds.at(-1)!.load})`).join(', ')}`);
  }

  const fmt = (n: number, digits = 1) => n.toFixed(digits).padStart(11);
  console.log(`\nA ${MB} MiB object, ${DOWNLOADS} downloads ${CONCURRENCY} at a time per round, ${ROUNDS} alternating rounds (${os.cpus().length} CPUs)`);
  console.log(`first download's bytes: ${sides.map((side) => `${side.mode} ${side.firstBytes}`).join(', ')}`);
  console.log(`${'path'.padEnd(14)}${'MB/s'.padStart(11)}${'server'.padStart(11)}${'storage'.padStart(11)}${'RSS before'.padStart(11)}${'RSS peak'.padStart(11)}${'growth'.padStart(11)}  load per round`);
  console.log(`${''.padEnd(14)}${''.padStart(11)}${'CPU ms/MB'.padStart(11)}${'CPU ms/MB'.padStart(11)}${'MB'.padStart(11)}${'MB'.padStart(11)}${'MB'.padStart(11)}`);
  for (const side of sides) {
    const total = side.rounds.length * DOWNLOADS * MB;
    const mean = side.rounds.reduce((sum, r) => sum + r.mbPerSecond, 0) / side.rounds.length;
    const peak = Math.max(...side.rounds.map((r) => r.rssPeakMb));
    console.log(
      `${side.mode.padEnd(14)}${fmt(mean, 0)}${fmt((side.rounds.reduce((s, r) => s + r.serverCpu, 0) * 1000) / total, 2)}${fmt((side.rounds.reduce((s, r) => s + r.storageCpu, 0) * 1000) / total, 2)}${fmt(side.rssBeforeMb)}${fmt(peak)}${fmt(peak - side.rssBeforeMb)}  ${side.rounds.map((r) => r.load).join(' ')}`,
    );
  }

  console.log('\nThe storage SIGKILLed and started again mid-download (the client pauses after 1 MiB until the storage is back), then resumes with a Range:');
  for (const side of sides) {
    let restarted: Promise<number> | undefined;
    const url = restartUrls.get(side.mode)!;
    const first = await get(url, {
      keep: true,
      onData: (got, response) => {
        if (restarted || got.received < 1_048_576) return;
        response.pause();
        const at = performance.now();
        restarted = seaweed.restart().then(() => {
          response.resume();
          return performance.now() - at;
        });
      },
    });
    const restartMs = await restarted!;
    const parts = [...first.bytes];
    let have = first.received;
    let failedResumes = 0;
    const resumeStarted = performance.now();
    while (have < RESTART_BYTES && failedResumes < 20) {
      const rest = await get(url, { keep: true, range: `bytes=${have}-` }).catch(() => undefined);
      if (rest?.status === 206) {
        parts.push(...rest.bytes);
        have += rest.received;
      } else failedResumes += 1;
    }
    const whole = Buffer.concat(parts).equals(big.bytes);
    console.log(
      `  ${side.mode.padEnd(14)} first answer: ${first.received} of ${RESTART_BYTES} bytes, ${first.complete ? 'ended as if complete' : 'cut (the client knows it is short)'}; ` +
        `storage back in ${restartMs.toFixed(0)} ms; resumed in ${(performance.now() - resumeStarted).toFixed(0)} ms after ${failedResumes} failed attempts; bytes ${whole ? 'identical' : 'DIFFERENT'} (load ${load()})`,
    );
  }
} finally {
  agent.destroy();
  for (const running of [...sides.map((side) => side.server), ...stopLater]) await running.stop();
  await seaweed.stop();
}
