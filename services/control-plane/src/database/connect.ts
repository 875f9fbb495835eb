// Opens the database: PostgreSQL through @prisma/adapter-pg when a URL is
// configured, otherwise the embedded PGlite in a data directory. Both get the
// same migrations (applied here, before Prisma is used) and the same client.
import { PGlite } from "@electric-sql/pglite";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import type { SqlDriverAdapterFactory } from "@prisma/driver-adapter-utils";
import { PrismaPGlite } from "pglite-prisma-adapter";
import { mkdirSync } from "node:fs";
import { PrismaClient } from "../generated/prisma/client";
import { applyMigrations, type SqlRunner } from "./migrations";

export interface Database {
  prisma: PrismaClient;
  kind: "postgresql" | "pglite";
  /**
   * Plain SQL beside Prisma, for the per-request money batches: Prisma's query
   * layer (its WASM query compiler) cost more CPU per call than the database
   * work itself (docs/benchmark.md). PGlite runs it under the same lock as
   * Prisma's transactions.
   */
  query<Row = Record<string, unknown>>(sql: string, params: unknown[]): Promise<Row[]>;
  close(): Promise<void>;
}

/** @param options.migrationsDir the migrations applied (default: all; a test of an older schema gives a folder of the earlier ones). */
export async function openDatabase(options: {
  databaseUrl: string | undefined;
  dataDir: string;
  migrationsDir?: string;
}): Promise<Database> {
  if (options.databaseUrl) {
    await withPostgresRunner(options.databaseUrl, (runner) => applyMigrations(runner, options.migrationsDir));
    const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: options.databaseUrl, max: 10 }) });
    // Money batches are written one at a time (group commit), so a few connections serve them.
    const pool = new pg.Pool({ connectionString: options.databaseUrl, max: 4 });
    pool.on("error", () => {}); // an idle connection's error: the next query reconnects
    return {
      prisma,
      kind: "postgresql",
      query: async <Row>(sql: string, params: unknown[]) => (await pool.query(sql, params)).rows as Row[],
      close: async () => {
        await prisma.$disconnect();
        await pool.end();
      },
    };
  }
  mkdirSync(options.dataDir, { recursive: true });
  const pglite = new PGlite(options.dataDir);
  await applyMigrations(pgliteRunner(pglite), options.migrationsDir);
  // pglite-prisma-adapter 0.6 is typed against an older @prisma/driver-adapter-utils;
  // the runtime contract is the same.
  const adapter = new PrismaPGlite(pglite) as unknown as SqlDriverAdapterFactory;
  const prisma = new PrismaClient({ adapter });
  return {
    prisma,
    kind: "pglite",
    query: async <Row>(sql: string, params: unknown[]) => (await pglite.query<Row>(sql, params)).rows,
    close: async () => {
      await prisma.$disconnect();
      await pglite.close();
    },
  };
}

export async function withPostgresRunner<T>(databaseUrl: string, work: (runner: SqlRunner) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return await work({
      exec: async (sql) => void (await client.query(sql)),
      query: async (sql, params) => (await client.query(sql, params)).rows,
      // Several control planes may start at once: one migrates, the others wait.
      lock: async () => void (await client.query("SELECT pg_advisory_lock(727274)")),
      unlock: async () => void (await client.query("SELECT pg_advisory_unlock(727274)")),
    });
  } finally {
    await client.end();
  }
}

function pgliteRunner(pglite: PGlite): SqlRunner {
  return {
    exec: async (sql) => void (await pglite.exec(sql)),
    query: async (sql, params) => (await pglite.query<Record<string, unknown>>(sql, params)).rows,
    lock: async () => {},
    unlock: async () => {},
  };
}
