// Applies prisma/migrations/*/migration.sql in name order, each once, each in
// its own transaction, recording name and checksum. Prisma's own `migrate
// deploy` cannot be used on PostgreSQL through the pg adapter (prisma/orm#27403),
// so this small runner serves PostgreSQL and PGlite alike.
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";

export interface SqlRunner {
  exec(sql: string): Promise<void>;
  query(sql: string, params?: unknown[]): Promise<Record<string, unknown>[]>;
  lock(): Promise<void>;
  unlock(): Promise<void>;
}

export const migrationsDir = path.resolve(import.meta.dirname, "../../../../prisma/migrations");

interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

export function readMigrations(dir = migrationsDir): Migration[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(path.join(dir, entry.name, "migration.sql")))
    .map((entry) => entry.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(path.join(dir, name, "migration.sql"), "utf8");
      return { name, sql, checksum: createHash("sha256").update(sql).digest("hex") };
    });
}

/** Returns the names of the migrations applied by this call. */
export async function applyMigrations(runner: SqlRunner, dir = migrationsDir): Promise<string[]> {
  await runner.lock();
  try {
    await runner.exec(`CREATE TABLE IF NOT EXISTS "_gateway_migrations" (
      name TEXT PRIMARY KEY, checksum TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`);
    const rows = await runner.query(`SELECT name, checksum FROM "_gateway_migrations"`);
    const applied = new Map(rows.map((row) => [String(row.name), String(row.checksum)]));
    const done: string[] = [];
    for (const migration of readMigrations(dir)) {
      const checksum = applied.get(migration.name);
      if (checksum !== undefined) {
        if (checksum !== migration.checksum) throw new Error(`migration ${migration.name} was changed after it was applied`);
        continue;
      }
      const name = migration.name.replaceAll("'", "''");
      await runner.exec(
        `BEGIN;\n${migration.sql}\nINSERT INTO "_gateway_migrations" (name, checksum) VALUES ('${name}', '${migration.checksum}');\nCOMMIT;`,
      );
      done.push(migration.name);
    }
    return done;
  } catch (error) {
    await runner.exec("ROLLBACK").catch(() => {});
    throw error;
  } finally {
    await runner.unlock();
  }
}
