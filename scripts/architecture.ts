// The domain-level dependency graph, generated into docs/domain-graph.md by `npm run generate`
// (kept current by `generate:check`). A domain is a folder of src/ with a module.ts (src/domains.ts
// lists them); a domain depends on another when one of its files imports one of the other's (its
// door, src/<domain>/index.ts: the lint rule of eslint.config.js allows nothing else). Every kind of
// import counts: static, dynamic, re-exports and `import type`. The graph must have no cycle: the
// generation fails naming one, so a domain can always be read knowing only those below it.
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';

const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)'(\.{1,2}\/[^']+)'/g;

async function tsFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(entries.map((entry) => (entry.isDirectory() ? tsFiles(path.join(dir, entry.name)) : [path.join(dir, entry.name)])));
  return nested.flat().filter((file) => file.endsWith('.ts'));
}

export interface DomainGraph {
  domains: string[];
  /** The other folders of src/ (shared code the domains build on). */
  infrastructure: string[];
  /** Each domain's dependencies, sorted. */
  dependsOn: Map<string, string[]>;
}

export async function domainGraph(root: string): Promise<DomainGraph> {
  const src = path.join(root, 'src');
  const folders = (await readdir(src, { withFileTypes: true })).filter((entry) => entry.isDirectory()).map((entry) => entry.name).sort();
  const domains = folders.filter((folder) => existsSync(path.join(src, folder, 'module.ts')));
  const infrastructure = folders.filter((folder) => !domains.includes(folder));
  const dependsOn = new Map<string, string[]>();
  for (const domain of domains) {
    const used = new Set<string>();
    for (const file of await tsFiles(path.join(src, domain))) {
      for (const [, specifier = ''] of (await readFile(file, 'utf8')).matchAll(SPECIFIER)) {
        const top = path.relative(src, path.resolve(path.dirname(file), specifier)).split(path.sep)[0] ?? '';
        if (top !== domain && domains.includes(top)) used.add(top);
      }
    }
    dependsOn.set(domain, [...used].sort());
  }
  return { domains, infrastructure, dependsOn };
}

/** A cycle of the graph as its domains (the first repeated at the end), or null. */
export function findCycle(dependsOn: Map<string, string[]>): string[] | null {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (domain: string): string[] | null => {
    if (state.get(domain) === 'done') return null;
    if (state.get(domain) === 'open') return [...stack.slice(stack.indexOf(domain)), domain];
    state.set(domain, 'open');
    stack.push(domain);
    for (const next of dependsOn.get(domain) ?? []) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    stack.pop();
    state.set(domain, 'done');
    return null;
  };
  for (const domain of dependsOn.keys()) {
    const cycle = visit(domain);
    if (cycle) return cycle;
  }
  return null;
}

/** docs/domain-graph.md; throws when the graph has a cycle. */
export function architectureDocument({ domains, infrastructure, dependsOn }: DomainGraph, notice: string): string {
  const cycle = findCycle(dependsOn);
  if (cycle) throw new Error(`The domains depend on each other in a cycle: ${cycle.join(' -> ')}. Invert one dependency through a hook (docs/decisions.md "One door per domain").`);
  const usedBy = (domain: string) => domains.filter((other) => dependsOn.get(other)?.includes(domain));
  const id = (domain: string) => domain.replace(/-/g, '_');
  const list = (names: string[]) => (names.length ? names.map((name) => `\`${name}\``).join(', ') : 'none');
  return [
    `<!-- ${notice} Source: scripts/architecture.ts. -->`,
    '',
    '# Architecture: the domains and their dependencies',
    '',
    'The service is a list of domains (`src/domains.ts`), each a folder of `src/` with a `module.ts`, built on',
    'shared infrastructure (the other folders). A domain uses another only through its door,',
    '`src/<domain>/index.ts`, and reacts to another through the hooks that one exposes; the graph below',
    'is read from the imports and has no cycle ([decisions](decisions/architecture.md#one-door-per-domain-issue-32)). An arrow',
    'points from a domain to one it depends on.',
    '',
    '```mermaid',
    'graph TD',
    ...domains.flatMap((domain) => {
      const edges = dependsOn.get(domain) ?? [];
      return edges.length ? edges.map((to) => `  ${id(domain)}[${domain}] --> ${id(to)}[${to}]`) : [`  ${id(domain)}[${domain}]`];
    }),
    '```',
    '',
    '## Domains',
    '',
    ...domains.map((domain) => `- \`${domain}\`: depends on ${list(dependsOn.get(domain) ?? [])}; used by ${list(usedBy(domain))}.`),
    '',
    '## Infrastructure',
    '',
    `Not domains, shared by them: ${list(infrastructure)}.`,
    '',
  ].join('\n');
}
