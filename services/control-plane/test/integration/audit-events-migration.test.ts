// Migration 0009 (audit_events) on a database that already has change events: they become the audit log's
// first entries, in their order, with no actor (who acted was not recorded before).
import { cpSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withPostgresRunner } from "../../src/database/connect";
import { applyMigrations, migrationsDir } from "../../src/database/migrations";
import { scratchDatabase, type ScratchDatabase } from "../harness/scratch-database";

describe("migration 0009: the audit log starts from the change events", () => {
  let scratch: ScratchDatabase;

  beforeAll(async () => {
    scratch = await scratchDatabase(`audit_migration_${process.pid}`);
  });

  afterAll(async () => {
    await scratch?.drop();
  });

  it("copies every change event, oldest first, with its kind, payload and time and no actor", async () => {
    // The migrations before it, from a folder of their own.
    const before = mkdtempSync(path.join(os.tmpdir(), "migrations-"));
    for (const name of readdirSync(migrationsDir).filter((entry) => entry < "0009"))
      cpSync(path.join(migrationsDir, name), path.join(before, name), { recursive: true });
    await withPostgresRunner(scratch.url, (runner) => applyMigrations(runner, before)).finally(() =>
      rmSync(before, { recursive: true, force: true }),
    );

    const client = new pg.Client({ connectionString: scratch.url });
    await client.connect();
    try {
      await client.query(`INSERT INTO change_events (kind, payload, created_at) VALUES
        ('catalogue', '{"revision": "1"}', '2026-11-20T10:00:00Z'),
        ('key_revoked', '{"projectId": "p", "keyId": "k"}', '2026-11-21T10:00:00Z'),
        ('project_changed', '{"projectId": "p", "rpmLimit": 30}', '2026-11-22T10:00:00Z')`);
      expect(await withPostgresRunner(scratch.url, (runner) => applyMigrations(runner))).toContain("0009_audit_events");
      const { rows } = await client.query(
        "SELECT kind, actor, payload, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day FROM audit_events ORDER BY id",
      );
      expect(rows).toEqual([
        { kind: "catalogue", actor: null, payload: { revision: "1" }, day: "2026-11-20" },
        { kind: "key_revoked", actor: null, payload: { projectId: "p", keyId: "k" }, day: "2026-11-21" },
        { kind: "project_changed", actor: null, payload: { projectId: "p", rpmLimit: 30 }, day: "2026-11-22" },
      ]);
    } finally {
      await client.end();
    }
  });
});
