// `npm run bench:topology`: the local production topology's figures (scripts/topology.ts; docs/deployment.md,
// "The worked example"): paid checkouts per second through one API and one worker, then through
// HAProxy with two of each, and the CPU each part spends per paid checkout (./topology-throughput.ts),
// with the load average beside each figure.
import { runCli } from '../test/support/processes.js';
import { startTopology } from '../scripts/topology.js';
import { keyHeaders, post, type BenchWorkspace } from './support.js';
import { measureCheckouts } from './topology-throughput.js';

const topology = await startTopology({ RATE_LIMIT_POINTS: '1000000000' });
try {
  const ws = await runCli<BenchWorkspace>(['workspace', 'create', '--name', 'Bench topology'], topology.env);
  const headers = keyHeaders(ws);
  const { product } = await post<{ product: { id: string } }>(`${topology.url}/v0/products/create`, headers, { name: 'Topology album', projectId: ws.projectId, type: 'DigitalDownload' });
  const { offer } = await post<{ offer: { id: string } }>(`${topology.url}/v0/offers/create`, headers, { productId: product.id, price: 1500, currency: 'USD' });
  const { checkoutElement } = await post<{ checkoutElement: { id: string } }>(`${topology.url}/v0/elements/checkout/create`, headers, { offersIds: [offer.id] });
  console.log(await measureCheckouts(topology, checkoutElement.id));
} finally {
  await topology.stop();
}
