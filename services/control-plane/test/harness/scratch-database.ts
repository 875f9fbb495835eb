// A database of a test's own on the machine's PostgreSQL (TEST_POSTGRES_URL, else the shared server's
// `test` database as the admin connection): created empty, dropped when the test is done.
import pg from "pg";
import { TEST_POSTGRES_URL as ADMIN_URL } from "../../../../deploy/test/test-services";

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

export interface ScratchDatabase {
  url: string;
  drop(): Promise<void>;
}

/** Creates database `name` anew (dropping a leftover of an earlier run) and returns its URL. */
export async function scratchDatabase(name: string): Promise<ScratchDatabase> {
  await admin(`DROP DATABASE IF EXISTS ${name}`);
  await admin(`CREATE DATABASE ${name}`);
  return { url: ADMIN_URL.replace(/\/[^/]*$/, `/${name}`), drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}
