import { defineConfig } from "vitest/config";

// Unit tests and integration tests (real processes, PostgreSQL, Redis) in one run.
export default defineConfig({
  test: {
    include: ["services/*/test/**/*.test.ts", "proto/test/**/*.test.ts", "deploy/test/**/*.test.ts"],
    // One migrated PGlite folder that the test stacks copy (deploy/test/pglite-template.ts).
    globalSetup: ["deploy/test/global-setup.ts"],
    pool: "forks",
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    reporters: ["default"],
  },
});
