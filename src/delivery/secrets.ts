// Secrets of the delivery domain (license keys at rest, download URL signatures): the variable
// when set, otherwise a random one generated once into DATA_DIR (mode 0600) and read by every
// process on that DATA_DIR. A deployment whose processes do not share DATA_DIR sets the variables;
// production mode requires them (src/production-settings.ts) and never writes one here.
import { linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { config } from '../config.js';

/** The generated secret `DATA_DIR/<fileName>`, created atomically (a temporary file linked into place) so concurrent first starts agree. */
export function dataDirSecret(fileName: string): string {
  if (config.production) throw new Error(`NODE_ENV=production generates no secret into DATA_DIR (${fileName}): set its variable`);
  const file = path.join(config.dataDir, fileName);
  mkdirSync(config.dataDir, { recursive: true });
  const temporary = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(temporary, randomBytes(32).toString('base64'), { mode: 0o600 });
  try {
    linkSync(temporary, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    unlinkSync(temporary);
  }
  return readFileSync(file, 'utf8').trim();
}
