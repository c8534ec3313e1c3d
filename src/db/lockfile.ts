// Cross-process lock files owned by a pid. A lock is written to a temporary file and then
// link()ed into place: like O_EXCL creation it fails when the lock exists, and a reader never
// sees a half-written file. A lock whose owner is dead is stale and is taken over.
import { randomUUID } from 'node:crypto';
import { link, readFile, rename, unlink, writeFile } from 'node:fs/promises';

export interface LockInfo {
  pid: number;
  port?: number;
  /** A second port the owner serves (the Temporal dev server's web UI). */
  uiPort?: number;
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The lock's owner, undefined when there is no lock, null when the file is unreadable. */
export async function readLock(file: string): Promise<LockInfo | null | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const info = JSON.parse(text) as Partial<LockInfo>;
    if (Number.isInteger(info.pid)) return { pid: info.pid!, port: info.port, uiPort: info.uiPort };
  } catch {
    // Not ours or damaged: nobody can be shown to own it.
  }
  return null;
}

/** Takes the lock, or returns the live owner that holds it. */
export async function acquireLock(file: string, info: LockInfo): Promise<LockInfo | undefined> {
  const tmp = `${file}.${randomUUID()}.tmp`;
  await writeFile(tmp, JSON.stringify(info));
  try {
    for (;;) {
      try {
        await link(tmp, file);
        return undefined;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const owner = await readLock(file);
      if (owner && isAlive(owner.pid)) return owner;
      if (owner !== undefined) await removeStale(file);
    }
  } finally {
    await unlink(tmp).catch(() => undefined);
  }
}

// Two processes can find the same stale lock: each moves it aside before deleting it, so one
// cannot delete the fresh lock the other has just taken.
async function removeStale(file: string): Promise<void> {
  const aside = `${file}.${randomUUID()}.stale`;
  try {
    await rename(file, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  const moved = await readLock(aside);
  if (moved && isAlive(moved.pid)) await link(aside, file).catch(() => undefined);
  await unlink(aside);
}

/** Rewrites a lock this process holds (atomically, by rename). */
export async function updateLock(file: string, info: LockInfo): Promise<void> {
  const tmp = `${file}.${randomUUID()}.tmp`;
  await writeFile(tmp, JSON.stringify(info));
  await rename(tmp, file);
}

export async function releaseLock(file: string): Promise<void> {
  const owner = await readLock(file);
  if (owner?.pid === process.pid) await unlink(file);
}
