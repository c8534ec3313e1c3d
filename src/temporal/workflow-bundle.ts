// The workflow bundle, cached across processes. The bundler takes one entry module: a generated
// one beside the cache re-exports every domain's workflow modules. Bundling loads webpack and
// takes seconds of CPU at every server and worker start; the cache keeps the bundle with a
// fingerprint of every path webpack read or probed (its file and missing dependencies, what its
// watch mode rebuilds on), the generated entry among them, so any change to workflow code, to
// the list of workflow modules or to the SDK bundles again.
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';

import { bundleWorkflowCode, type Logger, type WorkflowBundle } from '@temporalio/worker';

interface CachedBundle {
  sdkVersion: string;
  workflowsPath: string;
  /** Path -> content hash, 'dir', or 'missing'. */
  inputs: Record<string, string>;
  code: string;
}

const sdkVersion = (createRequire(import.meta.url)('@temporalio/worker/package.json') as { version: string }).version;

async function fingerprint(file: string): Promise<string> {
  try {
    if ((await stat(file)).isDirectory()) return 'dir';
    return createHash('sha256').update(await readFile(file)).digest('base64');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR') return 'missing';
    throw error;
  }
}

async function fingerprints(files: Iterable<string>): Promise<Record<string, string>> {
  const entries = await Promise.all([...new Set(files)].map(async (file) => [file, await fingerprint(file)] as const));
  return Object.fromEntries(entries);
}

async function readCache(file: string, workflowsPath: string): Promise<string | undefined> {
  let cached: CachedBundle;
  try {
    cached = JSON.parse(await readFile(file, 'utf8')) as CachedBundle;
  } catch {
    return undefined;
  }
  if (cached.sdkVersion !== sdkVersion || cached.workflowsPath !== workflowsPath) return undefined;
  const now = await fingerprints(Object.keys(cached.inputs));
  return Object.entries(cached.inputs).every(([input, print]) => now[input] === print) ? cached.code : undefined;
}

/** Writes the file unless it already holds this text (a concurrent start writes the same). */
async function writeIfChanged(file: string, text: string): Promise<void> {
  if ((await readFile(file, 'utf8').catch(() => undefined)) === text) return;
  // Written aside and renamed: a process bundling meanwhile reads the old entry or the new one.
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, text);
  await rename(tmp, file);
}

/** Bundles from the entry module; returns the code and every path webpack read or probed. */
async function bundle(workflowsPath: string, logger: Logger): Promise<{ code: string; inputs: string[] }> {
  let inputs: string[] = [];
  const { code } = await bundleWorkflowCode({
    workflowsPath,
    logger,
    webpackConfigHook: (config) => ({
      ...config,
      plugins: [
        ...(config.plugins ?? []),
        {
          apply(compiler) {
            compiler.hooks.done.tap('RecordWorkflowInputs', ({ compilation }) => {
              inputs = [...compilation.fileDependencies, ...compilation.missingDependencies];
            });
          },
        },
      ],
    }),
  });
  return { code, inputs };
}

export async function cachedWorkflowBundle(options: {
  /** The checkout: one cache entry per checkout sharing the cache (a linked node_modules). */
  root: string;
  /** Absolute paths of the workflow modules; their exported functions are the workflows. */
  workflowModules: readonly string[];
  cacheDir: string;
  logger: Logger;
}): Promise<WorkflowBundle> {
  const { root, workflowModules, cacheDir, logger } = options;
  const key = createHash('sha256').update(root).digest('hex').slice(0, 16);
  const cacheFile = path.join(cacheDir, `${key}.json`);
  const workflowsPath = path.join(cacheDir, `${key}-workflows.js`);
  const entry = workflowModules.map((module) => `export * from ${JSON.stringify(module)};\n`).join('');
  try {
    await mkdir(cacheDir, { recursive: true });
    await writeIfChanged(workflowsPath, entry);
  } catch (error) {
    // A read-only node_modules (say, a read-only image): bundle from a temporary entry, uncached.
    logger.warn('The workflow bundle cannot be cached', { error: (error as Error).message });
    const dir = await mkdtemp(path.join(os.tmpdir(), 'commerce-workflows-'));
    try {
      await writeFile(path.join(dir, 'workflows.js'), entry);
      return { code: (await bundle(path.join(dir, 'workflows.js'), logger)).code };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
  const cached = await readCache(cacheFile, workflowsPath);
  if (cached) return { code: cached };

  const { code, inputs } = await bundle(workflowsPath, logger);
  try {
    const cachedBundle: CachedBundle = { sdkVersion, workflowsPath, inputs: await fingerprints(inputs), code };
    // Written aside and renamed: a process starting meanwhile reads the old cache or the new one.
    const tmp = `${cacheFile}.${process.pid}.tmp`;
    await writeFile(tmp, JSON.stringify(cachedBundle));
    await rename(tmp, cacheFile);
  } catch (error) {
    logger.warn('The workflow bundle could not be cached', { error: (error as Error).message });
  }
  return { code };
}
