// `npm run bench:downloads`: digital downloads end to end. First download URL minting
// (`POST /v0/orders/{id}/items/{itemId}/download-url`, BENCH_MINTS (default 2,000) of them,
// BENCH_MINT_CONCURRENCY (8) at a time): per second, latency and server CPU per URL. Then a 10 MiB
// file (BENCH_FILE_MB) served through the minted URL 20 at a time (BENCH_DOWNLOADS, 100, per round, in
// BENCH_ROUNDS (3) alternating rounds): MB/s and the server's RSS while serving, side by side with
// a bare node:http file stream of the same file (bench/bare-file-server.ts), and, when SeaweedFS's
// `weed` is found (test/support/seaweedfs.ts; BENCH_S3=false leaves it out), the same from an
// S3 bucket. Production's shape: API processes (WORKER_IN_PROCESS=false) and a worker process.
// Target: the server's RSS grows by less than 20 MB while it serves (the file is streamed, never
// held whole). Growth is the peak RSS of all rounds (sampled every SAMPLE_MS while serving) less
// the RSS before the side served anything (before the first download, which checks the bytes).
import { createHash, randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';

import { runCli, startProcess, startServerProcess, startWorkerProcess } from '../test/support/processes.js';
import { findOrProvisionSeaweedfs, startSeaweedS3 } from '../test/support/seaweedfs.js';
import { type BenchWorkspace, CARD, cpuSeconds, inParallel, keyHeaders, post, quantile, sampleMemory, withBenchEnvironment } from './support.js';

const MINTS = Number(process.env.BENCH_MINTS ?? 2_000);
const MINT_CONCURRENCY = Number(process.env.BENCH_MINT_CONCURRENCY ?? 8);
const DOWNLOADS = Number(process.env.BENCH_DOWNLOADS ?? 100);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONCURRENCY = 20;
const FILE_BYTES = Number(process.env.BENCH_FILE_MB ?? 10) * 1_048_576;
const TARGET_RSS_GROWTH_MB = 20;
// Often enough to see a peak between two collections; only the serving process is sampled.
const SAMPLE_MS = 50;

interface Side {
  name: string;
  url: string;
  pid: number;
  /** RSS before the side served any download. */
  rssBeforeMb?: number;
  rounds: { mbPerSecond: number; rssPeakMb: number; cpuSeconds: number }[];
}

// One connection per download in flight, kept between downloads as a browser's would be.
const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });

/** Downloads `url` to nowhere: its bytes, and their SHA-256 when asked (the first download of a side is checked whole). */
function download(url: string, hash = false): Promise<{ bytes: number; sha256?: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent }, (response) => {
        if (response.statusCode !== 200) return reject(new Error(`GET ${url}: ${response.statusCode}`));
        const digest = hash ? createHash('sha256') : undefined;
        let bytes = 0;
        response.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          digest?.update(chunk);
        });
        response.on('end', () => resolve({ bytes, sha256: digest?.digest('hex') }));
        response.on('error', reject);
      })
      .on('error', reject);
  });
}

/** One round: DOWNLOADS downloads, CONCURRENCY at a time, with the server's RSS sampled throughout. */
async function serve(side: Side) {
  const memory = sampleMemory(side.pid, SAMPLE_MS);
  const cpuBefore = cpuSeconds(side.pid);
  const started = performance.now();
  let total = 0;
  await inParallel(DOWNLOADS, CONCURRENCY, async () => {
    const { bytes } = await download(side.url);
    if (bytes !== FILE_BYTES) throw new Error(`${side.name}: ${bytes} bytes instead of ${FILE_BYTES}`);
    total += bytes;
  });
  const seconds = (performance.now() - started) / 1000;
  const round = { mbPerSecond: total / 1_048_576 / seconds, rssPeakMb: memory.stop().rootRss, cpuSeconds: cpuSeconds(side.pid) - cpuBefore };
  side.rounds.push(round);
  return round;
}

const mean = (values: number[]) => values.reduce((sum, v) => sum + v, 0) / values.length;
const fmt = (n: number, digits = 1) => n.toFixed(digits).padStart(12);

await withBenchEnvironment(async ({ env, stopLater }) => {
  const serverEnv = { ...env, LOG_LEVEL: 'warn', RATE_LIMIT_POINTS: '1000000000', DOWNLOAD_URLS_PER_MINUTE: '1000000000', WORKER_IN_PROCESS: 'false' };
  const server = await startServerProcess(serverEnv);
  stopLater(server);
  stopLater(await startWorkerProcess({ ...env, LOG_LEVEL: 'warn' }));

  const bytes = randomBytes(FILE_BYTES);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const filePath = path.join(env.DATA_DIR, 'bench.zip');
  await writeFile(filePath, bytes);

  const ws = await runCli<BenchWorkspace>(['workspace', 'create', '--name', 'Bench downloads'], env);
  const headers = keyHeaders(ws);
  /** A DigitalDownload product with the file uploaded through `url`'s server, an order of it paid: the URL minter of its item. */
  const sale = async (url: string) => {
    const { product } = await post<{ product: { id: string } }>(`${url}/v0/products/create`, headers, { name: 'Bench album', projectId: ws.projectId, type: 'DigitalDownload' });
    const { offer } = await post<{ offer: { id: string } }>(`${url}/v0/offers/create`, headers, { productId: product.id, price: 999, currency: 'USD' });
    const { checkoutElement } = await post<{ checkoutElement: { id: string } }>(`${url}/v0/elements/checkout/create`, headers, { offersIds: [offer.id] });
    const uploaded = await fetch(`${url}/v0/products/${product.id}/files/upload?fileName=bench.zip`, { method: 'POST', headers: { ...headers, 'content-type': 'application/zip' }, body: bytes });
    if (uploaded.status !== 200) throw new Error(`upload: ${uploaded.status} ${await uploaded.text()}`);
    const { order } = await post<{ order: { id: string; status: string } }>(`${url}/checkout/${checkoutElement.id}/orders`, {}, { email: 'buyer@example.com', billingDetails: { countryCode: 'HK' }, card: CARD });
    if (order.status !== 'PAID') throw new Error(`order ${order.id} is ${order.status}`);
    const details = await fetch(`${url}/v0/orders/${order.id}`, { headers });
    const itemId = ((await details.json()) as { data: { order: { items: { id: string }[] } } }).data.order.items[0]!.id;
    return () => post<{ url: string }>(`${url}/v0/orders/${order.id}/items/${itemId}/download-url`, headers, { expiresIn: 3600 });
  };

  // Minting: one authenticated write, a few reads and no write to the database.
  const mint = await sale(server.url);
  await inParallel(50, MINT_CONCURRENCY, async () => void (await mint()));
  const latencies: number[] = [];
  const mintCpuBefore = cpuSeconds(server.child.pid!);
  const mintStarted = performance.now();
  await inParallel(MINTS, MINT_CONCURRENCY, async () => {
    const at = performance.now();
    await mint();
    latencies.push(performance.now() - at);
  });
  const mintSeconds = (performance.now() - mintStarted) / 1000;
  const mintCpuMs = ((cpuSeconds(server.child.pid!) - mintCpuBefore) * 1000) / MINTS;

  const bare = await startProcess('bench/bare-file-server.ts', { BENCH_FILE: filePath }, /listening on (http:\/\/\S+)/);
  stopLater(bare);
  const sides: Side[] = [
    { name: 'bare node:http file', url: bare.ready[1]!, pid: bare.child.pid!, rounds: [] },
    { name: 'full stack, local', url: (await mint()).url, pid: server.child.pid!, rounds: [] },
  ];
  const weed = process.env.BENCH_S3 === 'false' ? undefined : await findOrProvisionSeaweedfs().catch(() => undefined);
  if (weed) {
    const seaweed = await startSeaweedS3(weed);
    stopLater(seaweed);
    await seaweed.createBucket('bench');
    const s3Server = await startServerProcess({ ...serverEnv, ...seaweed.env('bench') });
    stopLater(s3Server);
    sides.push({ name: 'full stack, S3', url: (await (await sale(s3Server.url))()).url, pid: s3Server.child.pid!, rounds: [] });
  }
  for (const side of sides) {
    side.rssBeforeMb = sampleMemory(side.pid).stop().rootRss;
    const first = await download(side.url, true);
    if (first.sha256 !== sha256) throw new Error(`${side.name} served other bytes`);
  }

  for (let round = 1; round <= ROUNDS; round += 1) {
    const order = round % 2 ? sides : [...sides].reverse();
    for (const side of order) await serve(side);
    console.log(`round ${round}: ${sides.map((side) => `${side.name} ${side.rounds.at(-1)!.mbPerSecond.toFixed(0)} MB/s`).join(', ')}`);
  }
  agent.destroy();

  console.log(`\nDownload URL minting, ${MINTS} URLs ${MINT_CONCURRENCY} at a time (API process, LOG_LEVEL=warn; ${os.cpus().length} CPUs, load ${os.loadavg()[0]!.toFixed(1)})`);
  console.log(`  ${(MINTS / mintSeconds).toFixed(0)} URLs/s, p50 ${quantile(latencies, 0.5).toFixed(1)} ms, p99 ${quantile(latencies, 0.99).toFixed(1)} ms, server CPU ${mintCpuMs.toFixed(2)} ms/URL`);
  console.log(`\nA ${FILE_BYTES / 1_048_576} MiB file, ${DOWNLOADS} downloads ${CONCURRENCY} at a time per round, ${ROUNDS} alternating rounds`);
  console.log(`${'server'.padEnd(22)}${'MB/s'.padStart(12)}${'CPU ms/MB'.padStart(12)}${'RSS before'.padStart(12)}${'RSS peak'.padStart(12)}${'growth'.padStart(12)}`);
  let worstGrowth = 0;
  for (const side of sides) {
    const growth = Math.max(...side.rounds.map((r) => r.rssPeakMb)) - side.rssBeforeMb!;
    if (side.name.startsWith('full stack')) worstGrowth = Math.max(worstGrowth, growth);
    const cpuMsPerMb = (side.rounds.reduce((sum, r) => sum + r.cpuSeconds, 0) * 1000) / (side.rounds.length * DOWNLOADS * (FILE_BYTES / 1_048_576));
    console.log(
      `${side.name.padEnd(22)}${fmt(mean(side.rounds.map((r) => r.mbPerSecond)), 0)}${fmt(cpuMsPerMb, 2)}${fmt(side.rssBeforeMb!)}${fmt(Math.max(...side.rounds.map((r) => r.rssPeakMb)))}${fmt(growth)}`,
    );
  }
  console.log(`(held whole, ${CONCURRENCY} downloads at once would be ${((CONCURRENCY * FILE_BYTES) / 1_048_576).toFixed(0)} MB)`);
  if (!weed) console.log('(no SeaweedFS `weed` found: the S3 side was left out; see docs/benchmarks.md)');
  const ok = worstGrowth < TARGET_RSS_GROWTH_MB;
  console.log(`\nfull stack RSS growth while serving: ${worstGrowth.toFixed(1)} MB at most (target < ${TARGET_RSS_GROWTH_MB} MB) ${ok ? 'PASS' : 'FAIL'}`);
  if (!ok) process.exitCode = 1;
});
