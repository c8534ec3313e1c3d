import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

import { ESLint } from 'eslint';

import { architectureDocument, domainGraph } from '../scripts/architecture.js';
import { longFiles } from '../scripts/file-length.js';
import { ROOT as root } from './support/processes.js';

// The checks behind `npm run lint` and `npm run generate:check` for the house's shape
// (docs/decisions.md "One door per domain"), run by the suite too: a domain reaches another only
// through its door, the domains depend on each other without a cycle, and no source file is over
// 400 lines.

describe('one door per domain', () => {
  const eslint = new ESLint({ cwd: root });
  const lint = async (file: string, code: string) => {
    const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
    return result!.messages.map((message) => `${message.ruleId}: ${message.message}`);
  };

  test("an import of another domain's private file fails lint, in a domain and in the infrastructure", async () => {
    const bypass = "import { releaseLicenseKeys } from '../delivery/license-keys.js';\nexport const release = releaseLicenseKeys;\n";
    expect(await lint('src/orders/bypass.ts', bypass)).toEqual([expect.stringMatching(/^no-restricted-imports: .*Another domain's files are private/)]);
    expect(await lint('src/payments/processors/bypass.ts', "export type { OrderRow } from '../../orders/events.js';\n")).toEqual([expect.stringMatching(/^no-restricted-imports:/)]);
    expect(await lint('src/workspaces/bypass.ts', "import type { TaxReason } from '../tax/calculate.js';\nexport type Reason = TaxReason;\n")).toEqual([expect.stringMatching(/^no-restricted-imports:/)]);
  });

  test("its door, and a domain's own files, pass", async () => {
    expect(await lint('src/orders/through-the-door.ts', "import { reserveLicenseKeys } from '../delivery/index.js';\nexport const reserve = reserveLicenseKeys;\n")).toEqual([]);
    expect(await lint('src/delivery/own.ts', "import { releaseLicenseKeys } from './license-keys.js';\nexport const release = releaseLicenseKeys;\n")).toEqual([]);
  });
});

describe('the domain graph (docs/domain-graph.md)', () => {
  test('has no cycle, and every domain has its door', async () => {
    const graph = await domainGraph(root);
    expect(graph.domains).toEqual(expect.arrayContaining(['orders', 'payments', 'subscriptions', 'delivery']));
    expect(graph.dependsOn.get('orders')).not.toContain('delivery');
    expect(() => architectureDocument(graph, 'test')).not.toThrow();
  });

  test('a cycle fails the generation, naming it', async () => {
    const fixture = await mkdtemp(path.join(os.tmpdir(), 'commerce-domain-graph-'));
    try {
      const files: Record<string, string> = {
        'src/a/module.ts': "export { b } from '../b/index.js';\n",
        'src/b/module.ts': "export const b = 1;\n",
        'src/b/index.ts': "export type { A } from '../a/index.js';\n",
        'src/a/index.ts': 'export type A = number;\n',
        'src/core/time.ts': 'export const now = () => 0;\n',
      };
      for (const [file, text] of Object.entries(files)) {
        await mkdir(path.dirname(path.join(fixture, file)), { recursive: true });
        await writeFile(path.join(fixture, file), text);
      }
      const graph = await domainGraph(fixture);
      expect(graph).toMatchObject({ domains: ['a', 'b'], infrastructure: ['core'] });
      expect(() => architectureDocument(graph, 'test')).toThrow('The domains depend on each other in a cycle: a -> b -> a');
    } finally {
      await rm(fixture, { recursive: true, force: true });
    }
  });
});

describe('file length', () => {
  test('no source file is over 400 lines (generated code aside)', () => {
    expect(longFiles(root)).toEqual([]);
  });
});
