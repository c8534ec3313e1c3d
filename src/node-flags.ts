// The V8 flags `npm start` and `npm run worker` run the compiled entries with (scripts/run.mjs;
// tests and benchmarks start processes the same way). On the products-list benchmark an API
// process on Node 24 peaks at about 206 MB resident with them and at 450 MB without, at the same
// throughput (README "Benchmarks"):
// - --liftoff-only: Prisma's query compiler is a 3 MB WebAssembly module; optimizing it costs
//   machine code (about 30 MB on Node 20, 5 to 10 on Node 24), and its plans are cached, so the
//   baseline compiler is enough.
// - an API process's heap is capped. Its old generation (API_HEAP_LIMIT_MB): V8 sizes it from the
//   machine's memory and, on a big machine, lets hundreds of MB of garbage pile up before a full
//   collection. Its young generation's semi-spaces, at 8 MB: Node 24's V8 grows them to 64 MB
//   (Node 20's to 16), about 85 MB more resident for no more throughput. A process running a
//   Temporal worker keeps V8's defaults: the SDK sizes its workflow cache from the heap limit.

const DEFAULT_API_HEAP_LIMIT_MB = 192;
const API_SEMI_SPACE_MB = 8;

/** Flags for `node <flags> dist/<entry>`; main.js runs a worker too unless WORKER_IN_PROCESS=false. */
export function nodeFlags(entry: 'main.js' | 'worker.js', env: NodeJS.ProcessEnv = process.env): string[] {
  const flags = ['--liftoff-only'];
  const runsWorker = entry === 'worker.js' || env.WORKER_IN_PROCESS !== 'false';
  if (runsWorker) return flags;
  const raw = env.API_HEAP_LIMIT_MB;
  const heapLimitMb = raw === undefined || raw === '' ? DEFAULT_API_HEAP_LIMIT_MB : Number(raw);
  if (!Number.isInteger(heapLimitMb) || heapLimitMb < 64) throw new Error('API_HEAP_LIMIT_MB must be an integer of at least 64');
  return [...flags, `--max-old-space-size=${heapLimitMb}`, `--max-semi-space-size=${API_SEMI_SPACE_MB}`];
}
