// The Temporal server as a service of its own (`temporal-server`) and its schema tool
// (`temporal-sql-tool`), the two commands of the go.temporal.io/server module. Like the CLI they are
// on neither npm nor Debian: found in TEMPORAL_SERVER_DIR or the user cache, else built there with
// `go install` from the Go module proxy. The version is the one the CLI's dev server embeds (CLI
// v1.5.1: server v1.29.1), so the suite runs one Temporal version whichever server it uses.
import { mkdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';

import { EXE, findGo, goInstall, isExecutable, stderrLog, type Log } from '../go-programs.js';
import { downloadCacheDir } from './temporal-cli-binary.js';

export const TEMPORAL_SERVER_VERSION = 'v1.29.1';
const MODULE = 'go.temporal.io/server';
// `go install` names each executable after its package folder: cmd/server and cmd/tools/sql.
const PACKAGES = { server: 'cmd/server', sqlTool: 'cmd/tools/sql' } as const;
const NAMES = { server: `temporal-server${EXE}`, sqlTool: `temporal-sql-tool${EXE}` } as const;

export interface TemporalServerPrograms {
  /** `temporal-server --config <dir> --env <name> start` */
  server: string;
  /** temporal-sql-tool: creates the databases and applies the schema (embedded in it) */
  sqlTool: string;
}

/** The folder of this version's executables: TEMPORAL_SERVER_DIR, else one beside the CLI's download cache. */
export function temporalServerDir(): string {
  return process.env.TEMPORAL_SERVER_DIR || path.join(path.dirname(downloadCacheDir()), `temporal-server-${TEMPORAL_SERVER_VERSION}`);
}

const programsIn = (dir: string): TemporalServerPrograms => ({ server: path.join(dir, NAMES.server), sqlTool: path.join(dir, NAMES.sqlTool) });

/** The executables, building them with Go when this machine has none. */
export async function findOrProvisionTemporalServer(log: Log = stderrLog): Promise<TemporalServerPrograms> {
  const dir = temporalServerDir();
  const programs = programsIn(dir);
  if ((await isExecutable(programs.server)) && (await isExecutable(programs.sqlTool))) return programs;
  const go = await findGo();
  if (!go) {
    throw new Error(
      [
        `The Temporal server ${TEMPORAL_SERVER_VERSION} (temporal-server and temporal-sql-tool) is not in ${dir}, and Go is not installed to build it.`,
        `Install Go (https://go.dev/dl/) and start again, or build both yourself and set TEMPORAL_SERVER_DIR to their folder:`,
        `  GOBIN=<dir> go install ${MODULE}/${PACKAGES.server}@${TEMPORAL_SERVER_VERSION} ${MODULE}/${PACKAGES.sqlTool}@${TEMPORAL_SERVER_VERSION}`,
        `  then rename <dir>/server to ${NAMES.server} and <dir>/sql to ${NAMES.sqlTool}.`,
      ].join('\n'),
    );
  }
  // Built into a folder of its own, then moved into place: a concurrent start never sees half of it.
  const staging = `${dir}.${process.pid}.tmp`;
  await rm(staging, { recursive: true, force: true });
  await mkdir(staging, { recursive: true });
  try {
    const packages = Object.values(PACKAGES).map((pkg) => `${MODULE}/${pkg}@${TEMPORAL_SERVER_VERSION}`);
    await goInstall(go, packages, `the Temporal server ${TEMPORAL_SERVER_VERSION}`, log, staging);
    for (const key of ['server', 'sqlTool'] as const) await rename(path.join(staging, `${path.basename(PACKAGES[key])}${EXE}`), path.join(staging, NAMES[key]));
    await mkdir(path.dirname(dir), { recursive: true });
    await rename(staging, dir).catch(async (error: NodeJS.ErrnoException) => {
      // Another process finished first: its copy is the same build.
      if (error.code !== 'ENOTEMPTY' && error.code !== 'EEXIST') throw error;
    });
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  return programs;
}
