import { defineConfig } from 'prisma/config';

// Prisma 7 reads the datasource URL here. Only the CLI's generate step uses this file; the
// service connects through src/db and migrates through its own runner (src/db/migrate.ts).
export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: { url: process.env.DATABASE_URL ?? 'postgresql://localhost:5432/commerce' },
});
