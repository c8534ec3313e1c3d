// `npm run bench:tax`: the tax calculation's cost, in one run, side by side:
// 1. in-process: calculateTax calls per second over a mix of locations (EU VAT, UK, Quebec GST +
//    QST, a US state with its ZIP code checked, Japan, a reverse charge), after a warm-up;
// 2. through HTTP: POST /v0/tax/calculate requests per second at BENCH_TAX_CONCURRENCY (default
//    8) for BENCH_DURATION seconds (default 10), with their latencies;
// 3. the checkout quote (POST /checkout/{id}/quote) with and without tax: the same element and
//    body, with German billing details (tax calculated per line) or without (no tax), sent
//    alternately one at a time (BENCH_TAX_QUOTES pairs, default 600) so both see the same
//    machine. Tax must cost the quote less than 10% at the median (exit code 1 otherwise).
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { calculateTax, type TaxInput } from '../src/tax/calculate.js';
import { runCli, startServerProcess } from '../test/support/processes.js';
import { inParallel, keyHeaders, post, processesMemory, quantile, withBenchEnvironment, type BenchWorkspace } from './support.js';

const DURATION_S = Number(process.env.BENCH_DURATION ?? 10);
const CONCURRENCY = Number(process.env.BENCH_TAX_CONCURRENCY ?? 8);
const QUOTE_PAIRS = Number(process.env.BENCH_TAX_QUOTES ?? 600);
const IN_PROCESS_CALLS = 200_000;
const MAX_OVERHEAD = 0.1;

const at = new Date();
const MIX: TaxInput[] = [
  { productType: 'DigitalDownload', amount: 1999, currency: 'EUR', location: { country: 'DE', postalCode: '10115' }, priceIncludesTax: false, at },
  { productType: 'DigitalDownload', amount: 1999, currency: 'GBP', location: { country: 'GB' }, priceIncludesTax: true, at },
  { productType: 'Game', amount: 4999, currency: 'CAD', location: { country: 'CA', state: 'QC', postalCode: 'H2X 1Y4' }, priceIncludesTax: false, at },
  { productType: 'SoftwareKey', amount: 2999, currency: 'USD', location: { country: 'US', state: 'WA', postalCode: '98101' }, priceIncludesTax: false, at },
  { productType: 'VirtualCurrency', amount: 1200, currency: 'JPY', location: { country: 'JP' }, priceIncludesTax: true, at },
  { productType: 'DigitalDownload', amount: 1999, currency: 'EUR', location: { country: 'FR' }, taxId: 'FR40303265045', priceIncludesTax: false, at },
];

const fmt = (n: number, digits = 0, width = 10) => n.toFixed(digits).padStart(width);

function inProcess() {
  for (let i = 0; i < 5_000; i++) calculateTax(MIX[i % MIX.length]!);
  const started = performance.now();
  let checksum = 0;
  for (let i = 0; i < IN_PROCESS_CALLS; i++) checksum += calculateTax(MIX[i % MIX.length]!).taxAmount;
  const seconds = (performance.now() - started) / 1000;
  return { perSecond: IN_PROCESS_CALLS / seconds, microseconds: (seconds * 1e6) / IN_PROCESS_CALLS, checksum };
}

async function timed(url: string, headers: Record<string, string>, body: unknown): Promise<number> {
  const started = performance.now();
  const response = await fetch(url, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`POST ${url}: ${response.status} ${text.slice(0, 200)}`);
  return performance.now() - started;
}

const local = inProcess();
console.log('in-process: calculateTax over a mix of DE, GB (inclusive), CA-QC, US-WA (ZIP checked), JP (inclusive), FR reverse charge');
console.log(`  ${fmt(local.perSecond, 0, 0)} calculations/s (${local.microseconds.toFixed(2)} µs each, ${IN_PROCESS_CALLS} calls)\n`);

await withBenchEnvironment(async ({ env, stopLater }) => {
  const server = await startServerProcess({ ...env, LOG_LEVEL: 'warn', RATE_LIMIT_POINTS: '1000000000', WORKER_IN_PROCESS: 'false' });
  stopLater(server);
  const memory = processesMemory({ 'API process': server.child.pid! });
  const ws = await runCli<BenchWorkspace>(['workspace', 'create', '--name', 'Bench tax'], env);
  const headers = keyHeaders(ws);
  const { product } = await post<{ product: { id: string } }>(`${server.url}/v0/products/create`, headers, { name: 'Bench ebook', projectId: ws.projectId, type: 'DigitalDownload' });
  const { offer } = await post<{ offer: { id: string } }>(`${server.url}/v0/offers/create`, headers, { productId: product.id, price: 1999, currency: 'EUR' });
  const { checkoutElement } = await post<{ checkoutElement: { id: string } }>(`${server.url}/v0/elements/checkout/create`, headers, { offersIds: [offer.id] });

  // Through HTTP.
  const taxUrl = `${server.url}/v0/tax/calculate`;
  const bodies = MIX.map(({ location, taxId }) => ({ offerId: offer.id, country: location.country, state: location.state, postalCode: location.postalCode, taxId }));
  await inParallel(200, CONCURRENCY, async (i) => void (await timed(taxUrl, headers, bodies[i % bodies.length])));
  const latencies: number[] = [];
  const until = performance.now() + DURATION_S * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < until) latencies.push(await timed(taxUrl, headers, bodies[latencies.length % bodies.length]));
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const single: number[] = [];
  for (let i = 0; i < 300; i++) single.push(await timed(taxUrl, headers, bodies[i % bodies.length]));
  console.log(`through HTTP: POST /v0/tax/calculate (one API process; machine load ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} CPUs)`);
  console.log(`  ${CONCURRENCY} in flight for ${DURATION_S} s: ${fmt(latencies.length / seconds, 0, 0)} calculations/s, p50 ${quantile(latencies, 0.5).toFixed(2)} ms, p99 ${quantile(latencies, 0.99).toFixed(2)} ms`);
  console.log(`  one at a time: p50 ${quantile(single, 0.5).toFixed(2)} ms, p99 ${quantile(single, 0.99).toFixed(2)} ms\n`);

  // The quote with and without tax, alternately.
  const quoteUrl = `${server.url}/checkout/${checkoutElement.id}/quote`;
  const withTax = { quantity: 2, billingDetails: { countryCode: 'DE', postalCode: '10115' } };
  const withoutTax = { quantity: 2 };
  for (let i = 0; i < 100; i++) await timed(quoteUrl, {}, i % 2 ? withTax : withoutTax);
  const samples = { with: [] as number[], without: [] as number[] };
  for (let i = 0; i < QUOTE_PAIRS; i++) {
    // Alternate which goes first, so neither always runs on a warmer path.
    if (i % 2) {
      samples.with.push(await timed(quoteUrl, {}, withTax));
      samples.without.push(await timed(quoteUrl, {}, withoutTax));
    } else {
      samples.without.push(await timed(quoteUrl, {}, withoutTax));
      samples.with.push(await timed(quoteUrl, {}, withTax));
    }
  }
  const p50 = { with: quantile(samples.with, 0.5), without: quantile(samples.without, 0.5) };
  const overhead = (p50.with - p50.without) / p50.without;
  console.log(`checkout quote, one at a time, ${QUOTE_PAIRS} of each alternately:`);
  console.log(`${''.padEnd(14)}${'p50 ms'.padStart(10)}${'p90 ms'.padStart(10)}${'p99 ms'.padStart(10)}`);
  for (const [name, values] of [['without tax', samples.without], ['with tax', samples.with]] as const) {
    console.log(`${name.padEnd(14)}${fmt(quantile(values, 0.5), 2)}${fmt(quantile(values, 0.9), 2)}${fmt(quantile(values, 0.99), 2)}`);
  }
  const pass = overhead < MAX_OVERHEAD;
  console.log(`tax adds ${(overhead * 100).toFixed(1)}% to the quote's median latency (target < ${MAX_OVERHEAD * 100}%) ${pass ? 'PASS' : 'FAIL'}`);
  console.log(memory.stop().line);
  if (!pass) process.exitCode = 1;
});
