// Prisma CLI configuration. The JS schema engine on an in-memory PGlite lets
// `prisma generate` and `prisma migrate diff` run without the schema-engine
// binary (which cannot be downloaded here). Migrations are applied to real
// databases by the control plane's own runner (services/control-plane/src/database/migrations.ts).
import { defineConfig } from "prisma/config";
import { PGlite } from "@electric-sql/pglite";
import { PrismaPGlite } from "pglite-prisma-adapter";

export default defineConfig({
  schema: "schema.prisma",
  experimental: { adapter: true },
  engine: "js",
  adapter: async () => new PrismaPGlite(new PGlite()),
});
