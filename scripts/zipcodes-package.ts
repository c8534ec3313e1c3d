// The `zipcodes` package's US codes, through its public `codes` export: for the generator of
// src/tax/data/us-zip3.ts and the test that compares the two. Never loaded at run time.
import { createRequire } from 'node:module';

interface ZipRecord {
  zip: string;
  state: string;
  country: string;
}

export function usZipCodes(): { zip: string; state: string }[] {
  const { codes } = createRequire(import.meta.url)('zipcodes') as { codes: Record<string, ZipRecord> };
  return Object.values(codes)
    .filter((record) => record.country === 'US')
    .map(({ zip, state }) => ({ zip, state }));
}
