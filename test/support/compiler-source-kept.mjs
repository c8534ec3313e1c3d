// Run as `node --expose-gc test/support/compiler-source-kept.mjs` after scripts/build.mjs: as the
// compiled processes do (tsx's loader keeps the sources it loads), makes Prisma's client load its
// query compiler (a model query; whether the database answers does not matter), collects the
// garbage, and prints how many strings of 1 MB or more in the heap hold the compiler's WebAssembly
// as base64 (it starts "AGFzbQ", the encoded "\0asm" magic), alone or as its module's source: 0
// once the generated client releases them (scripts/generate.ts).
import { getHeapSnapshot } from 'node:v8';

// Built JavaScript, by a computed path: the type check reads the sources, not dist/.
const { createPrismaClient } = await import(new URL('../../dist/db/client.js', import.meta.url).href);
const prisma = createPrismaClient(process.env.DATABASE_URL ?? 'postgresql://nobody@127.0.0.1:1/none');
await prisma.workspace.findFirst({ select: { id: true } }).catch(() => undefined);
await prisma.$disconnect();
/** @type {() => void} */ (globalThis.gc)();

/** @type {Buffer[]} */
const chunks = [];
for await (const chunk of getHeapSnapshot()) chunks.push(chunk);
// The snapshot names a string by its first characters; its size is the node's self_size.
/** @type {{ snapshot: { meta: { node_fields: string[]; node_types: [string[]] } }; nodes: number[]; strings: string[] }} */
const snapshot = JSON.parse(Buffer.concat(chunks).toString('utf8'));
const { node_fields: fields, node_types: [types] } = snapshot.snapshot.meta;
const [type, name, size] = ['type', 'name', 'self_size'].map((field) => fields.indexOf(field));
const { nodes, strings } = snapshot;
let kept = 0;
for (let node = 0; node < nodes.length; node += fields.length) {
  const isString = (types[nodes[node + (type ?? 0)] ?? -1] ?? '').includes('string');
  const text = strings[nodes[node + (name ?? 0)] ?? -1] ?? '';
  if (isString && (nodes[node + (size ?? 0)] ?? 0) >= 1_000_000 && /^(const wasm = ")?AGFzbQ/.test(text)) kept += 1;
}
console.log(kept);
