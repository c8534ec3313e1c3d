import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { migrateDeploy } from '../src/db/migrate.js';
import { scratchDatabase, sql, type ScratchDatabase } from './support/database.js';

// The migration runner on the suite's PostgreSQL: a copy of the project's migrations on a scratch database.
let database: ScratchDatabase;
let migrationsDir: string;

beforeAll(async () => {
  database = await scratchDatabase('commerce_migrate');
  migrationsDir = await mkdtemp(path.join(tmpdir(), 'commerce-migrations-'));
  await cp(path.join(process.cwd(), 'prisma', 'migrations'), migrationsDir, { recursive: true });
});

afterAll(async () => {
  await database.drop();
  await rm(migrationsDir, { recursive: true, force: true });
});

test('deploy applies what is pending, once: an up-to-date database is a no-op, a new migration is applied', async () => {
  const applied = await migrateDeploy(database.url, { migrationsDir });
  expect(applied.length).toBeGreaterThan(0);
  expect(applied).toEqual([...applied].sort());
  expect(await migrateDeploy(database.url, { migrationsDir })).toEqual([]);

  await mkdir(path.join(migrationsDir, '29991231000000_extra'));
  await writeFile(path.join(migrationsDir, '29991231000000_extra', 'migration.sql'), 'CREATE TABLE "Extra" (id integer PRIMARY KEY);\n');
  expect(await migrateDeploy(database.url, { migrationsDir })).toEqual(['29991231000000_extra']);
  expect(await sql(database.url, 'SELECT count(*)::int AS n FROM "Extra"')).toEqual([{ n: 0 }]);
  expect(await migrateDeploy(database.url, { migrationsDir })).toEqual([]);
  const rows = await sql<{ migration_name: string }>(database.url, 'SELECT migration_name FROM _prisma_migrations ORDER BY migration_name');
  expect(rows.map((row) => row.migration_name)).toEqual([...applied, '29991231000000_extra']);
}, 120_000);
