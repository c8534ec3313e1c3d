// `npm run bench:orders`: GET /v0/orders/list?take=20&statuses=PAID&currency=USD over 100,000
// orders (bench/orders-seed.ts), the full stack (the real server, started as `npm start` does)
// against the bare node:http + pg handler of bench/bare-server.ts running the statement Prisma
// sends and writing the same bytes. The filters are the ones an integrator reconciling revenue
// uses: the newest paid orders in one currency (settlements and payouts are per currency).
// Targets: the full stack reaches 40% of the bare handler's throughput, and the server's RSS
// stays under 250 MB. Output as `npm run bench` prints it (bench/side-by-side.ts).
import { ORDERS, seedOrders } from './orders-seed.js';
import { listSideBySide } from './side-by-side.js';
import { withBenchEnvironment } from './support.js';

// BENCH_ORDERS_FILTERS tries other values of these two (the bare handler serves no other filter).
const ORDERS_PATH = `/v0/orders/list?take=20&${process.env.BENCH_ORDERS_FILTERS ?? 'statuses=PAID&currency=USD'}`;

await withBenchEnvironment(async (environment) => {
  const { ratioOk, rssOk } = await listSideBySide(environment, {
    seed: async (databaseUrl, ws) => {
      const started = Date.now();
      await seedOrders(databaseUrl, ws);
      console.log(`seeded ${ORDERS.toLocaleString('en')} orders (items, first payments, buyers, subscriptions) in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    },
    path: ORDERS_PATH,
    listKey: 'orders',
    targetRatio: 0.4,
    describe: `${ORDERS.toLocaleString('en')} orders (90% live), newest paid USD orders`,
  });
  if (!ratioOk || !rssOk) process.exitCode = 1;
});
