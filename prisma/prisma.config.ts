// Prisma CLI configuration. The JS schema engine on an in-memory PGlite lets
// `prisma generate` and `prisma migrate diff` run without downloading the
// schema-engine binary. Migrations are applied to real
// databases by the control plane's own runner (services/control-plane/src/database/migrations.ts).
import { defineConfig } from "prisma/config";
import { PGlite } from "@electric-sql/pglite";
import type { SqlMigrationAwareDriverAdapterFactory } from "@prisma/driver-adapter-utils";
import { PrismaPGlite } from "pglite-prisma-adapter";

export default defineConfig({
  schema: "schema.prisma",
  experimental: { adapter: true },
  engine: "js",
  // pglite-prisma-adapter 0.6 is typed against an older @prisma/driver-adapter-utils;
  // the runtime contract is the same.
  adapter: async () => new PrismaPGlite(new PGlite()) as unknown as SqlMigrationAwareDriverAdapterFactory,
});
