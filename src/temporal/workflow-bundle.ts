// The workflow bundle, cached across processes. Bundling loads webpack and takes seconds of CPU
// at every server and worker start; the cache keeps the bundle with a fingerprint of every path
// webpack read or probed (its file and missing dependencies, what its watch mode rebuilds on),
// so any change to workflow code or to the SDK bundles again.
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
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

export async function cachedWorkflowBundle(options: { workflowsPath: string; cacheDir: string; logger: Logger }): Promise<WorkflowBundle> {
  const { workflowsPath, cacheDir, logger } = options;
  // One entry per checkout sharing the cache (a linked node_modules).
  const cacheFile = path.join(cacheDir, `${createHash('sha256').update(workflowsPath).digest('hex').slice(0, 16)}.json`);
  const cached = await readCache(cacheFile, workflowsPath);
  if (cached) return { code: cached };

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
  try {
    await mkdir(cacheDir, { recursive: true });
    const entry: CachedBundle = { sdkVersion, workflowsPath, inputs: await fingerprints(inputs), code };
    // Written aside and renamed: a process starting meanwhile reads the old cache or the new one.
    const tmp = `${cacheFile}.${process.pid}.tmp`;
    await writeFile(tmp, JSON.stringify(entry));
    await rename(tmp, cacheFile);
  } catch (error) {
    logger.warn('The workflow bundle could not be cached', { error: (error as Error).message });
  }
  return { code };
}
