// The V8 flags `npm start` and `npm run worker` run the compiled entries with (scripts/run.mjs;
// tests and benchmarks start processes the same way). On the products-list benchmark an API
// process on Node 24 peaks at about 206 MB resident with them and at 450 MB without, at the same
// throughput (README "Benchmarks"):
// - --liftoff-only: Prisma's query compiler is a 3 MB WebAssembly module; optimizing it costs
//   machine code (about 30 MB on Node 20, 5 to 10 on Node 24), and its plans are cached, so the
//   baseline compiler is enough.
// - the heap is capped. Its young generation's semi-spaces, at 8 MB: Node 24's V8 grows them to
//   64 MB (Node 20's to 16), about 85 MB more resident for no more throughput. Its old generation:
//   V8 sizes it from the machine's memory and, on a big machine, lets hundreds of MB of garbage
//   pile up before a full collection. An API process caps it at API_HEAP_LIMIT_MB; a process
//   running a Temporal worker at WORKER_HEAP_LIMIT_MB, more, since the SDK sizes its workflow
//   cache from the heap limit (about 180 workflows at 512 MB; a workflow evicted from it is
//   replayed when it next runs).

const SEMI_SPACE_MB = 8;
const HEAP_LIMITS = {
  api: { name: 'API_HEAP_LIMIT_MB', defaultMb: 192 },
  worker: { name: 'WORKER_HEAP_LIMIT_MB', defaultMb: 512 },
} as const;

/** Flags for `node <flags> dist/<entry>`; main.js runs a worker too unless WORKER_IN_PROCESS=false. */
export function nodeFlags(entry: 'main.js' | 'worker-main.js', env: NodeJS.ProcessEnv = process.env): string[] {
  const runsWorker = entry === 'worker-main.js' || env.WORKER_IN_PROCESS !== 'false';
  const { name, defaultMb } = HEAP_LIMITS[runsWorker ? 'worker' : 'api'];
  const raw = env[name];
  const heapLimitMb = raw === undefined || raw === '' ? defaultMb : Number(raw);
  if (!Number.isInteger(heapLimitMb) || heapLimitMb < 64) throw new Error(`${name} must be an integer of at least 64`);
  return ['--liftoff-only', `--max-old-space-size=${heapLimitMb}`, `--max-semi-space-size=${SEMI_SPACE_MB}`];
}
