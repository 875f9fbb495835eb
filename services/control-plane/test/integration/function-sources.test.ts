// Function sources (prisma/functions/*.sql, migrations.ts): applied after the migrations, again only when
// their text changes, and not to a database migrated to an older schema's folder unless asked.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { withPostgresRunner } from "../../src/database/connect";
import { applyMigrations, functionsDir, migrationsDir } from "../../src/database/migrations";
import { scratchDatabase, type ScratchDatabase } from "../harness/scratch-database";

describe("function sources", () => {
  let scratch: ScratchDatabase;
  const folder = mkdtempSync(path.join(os.tmpdir(), "functions-"));

  afterAll(async () => {
    await scratch?.drop();
    rmSync(folder, { recursive: true, force: true });
  });

  it("are applied after the migrations, again only when their text changed", async () => {
    scratch = await scratchDatabase("function_sources_test");
    const first = await withPostgresRunner(scratch.url, (runner) => applyMigrations(runner));
    expect(first).toContain("0013_usage_rollups");
    expect(first.at(-1)).toBe("function:gateway_update_key.sql");
    expect(await withPostgresRunner(scratch.url, (runner) => applyMigrations(runner))).toEqual([]);

    cpSync(functionsDir, folder, { recursive: true });
    const file = path.join(folder, "gateway_update_key.sql");
    writeFileSync(file, readFileSync(file, "utf8").replace("BEGIN\n", "BEGIN\n  -- changed by the test\n"));
    expect(await withPostgresRunner(scratch.url, (runner) => applyMigrations(runner, migrationsDir, folder))).toEqual([
      "function:gateway_update_key.sql",
    ]);
    const source = await withPostgresRunner(scratch.url, (runner) =>
      runner.query("SELECT prosrc FROM pg_proc WHERE proname = 'gateway_update_key'"),
    );
    expect(String(source[0]!.prosrc)).toContain("changed by the test");
    expect(await withPostgresRunner(scratch.url, (runner) => applyMigrations(runner, migrationsDir, folder))).toEqual([]);
  });
});
