// Archiving is a conditional update (`archivedAt` or `deletedAt` still null), so of two concurrent
// archives of one record exactly one goes on and records its event; the other sees nothing live
// and answers 404, as an archived record does.
import { NotFound } from './errors.js';

/** Runs the conditional update; throws NotFound(what) when it matched no live record. */
export async function claimArchive(what: string, archive: (now: Date) => Promise<{ count: number }>): Promise<Date> {
  const now = new Date();
  const { count } = await archive(now);
  if (count === 0) throw new NotFound(what);
  return now;
}
