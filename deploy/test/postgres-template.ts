// The PostgreSQL template database of a test run (made by the global setup, database-templates.ts): the test
// stacks create their databases as copies of it. Kept apart from database-templates.ts, which loads the
// control plane's database code, so the test files that only copy the template do not import that.
import pg from "pg";
import { TEST_POSTGRES_URL } from "./test-services";

/** The template database's name: the workers inherit it from the environment. */
export const POSTGRES_TEMPLATE_VARIABLE = "GATEWAY_TEST_POSTGRES_TEMPLATE";

/** The clause that makes a new database a copy of this run's template, or "" without one. */
export function postgresTemplateClause(): string {
  const template = process.env[POSTGRES_TEMPLATE_VARIABLE];
  return template ? ` TEMPLATE ${template}` : "";
}

/** `work` on a connection to the test server's own database (where databases are created and dropped). */
export async function withTestPostgres<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
