// Applies prisma/migrations/*/migration.sql in name order, each once, each in
// its own transaction, recording name and checksum; then prisma/functions/*.sql,
// the sources of money functions redefined since their creation, each again
// whenever its text changed (as Flyway's repeatable `R__` scripts), so a
// function's history is one file's. Prisma's own `migrate deploy` cannot be used
// on PostgreSQL through the pg adapter (prisma/orm#27403), so this small runner
// serves PostgreSQL and PGlite alike.
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
export const functionsDir = path.resolve(import.meta.dirname, "../../../../prisma/functions");

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
    .map((name) => sqlSource(name, readFileSync(path.join(dir, name, "migration.sql"), "utf8")));
}

/** The function sources, by file name, recorded as `function:<file>`. */
function readFunctions(dir: string): Migration[] {
  return readdirSync(dir)
    .filter((file) => file.endsWith(".sql"))
    .sort()
    .map((file) => sqlSource(`function:${file}`, readFileSync(path.join(dir, file), "utf8")));
}

const sqlSource = (name: string, sql: string): Migration => ({ name, sql, checksum: createHash("sha256").update(sql).digest("hex") });

/**
 * Returns the names of the migrations (and function sources) applied by this call. The function sources
 * belong to the latest schema: a test of an older one (another `dir`) gets none unless it names them.
 */
export async function applyMigrations(
  runner: SqlRunner,
  dir = migrationsDir,
  functions = dir === migrationsDir ? functionsDir : undefined,
): Promise<string[]> {
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
      await apply(runner, migration, false);
      done.push(migration.name);
    }
    for (const source of functions ? readFunctions(functions) : []) {
      if (applied.get(source.name) === source.checksum) continue;
      await apply(runner, source, applied.has(source.name));
      done.push(source.name);
    }
    return done;
  } catch (error) {
    await runner.exec("ROLLBACK").catch(() => {});
    throw error;
  } finally {
    await runner.unlock();
  }
}

/** One migration or function source in its own transaction, with its record (replaced for a changed function source). */
async function apply(runner: SqlRunner, migration: Migration, replace: boolean): Promise<void> {
  const name = migration.name.replaceAll("'", "''");
  const record = replace
    ? `UPDATE "_gateway_migrations" SET checksum = '${migration.checksum}', applied_at = now() WHERE name = '${name}';`
    : `INSERT INTO "_gateway_migrations" (name, checksum) VALUES ('${name}', '${migration.checksum}');`;
  await runner.exec(`BEGIN;\n${migration.sql}\n${record}\nCOMMIT;`);
}
