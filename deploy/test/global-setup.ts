// vitest's global setup: runs once, before the test files, in the main process.
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { openDatabase } from "../../services/control-plane/src/database/connect";
import { buildDataPlaneBundle, DATA_PLANE_BUNDLE_VARIABLE } from "./data-plane-bundle";
import { createPostgresTemplate, migrateWithDefaultCatalogue } from "./database-templates";
import { PGLITE_CATALOGUE_TEMPLATE_VARIABLE, PGLITE_TEMPLATE_VARIABLE } from "./pglite-template";
import { POSTGRES_TEMPLATE_VARIABLE } from "./postgres-template";

/** One migrated PGlite folder for the embedded control planes to copy, and one with the default catalogue for the stacks (pglite-template.ts). */
async function pgliteTemplates(): Promise<string[]> {
  const template = mkdtempSync(path.join(os.tmpdir(), "gateway-pglite-template-"));
  const withCatalogue = mkdtempSync(path.join(os.tmpdir(), "gateway-pglite-catalogue-template-"));
  const database = await openDatabase({ databaseUrl: undefined, dataDir: template });
  await database.close();
  cpSync(template, withCatalogue, { recursive: true });
  await migrateWithDefaultCatalogue({ databaseUrl: undefined, dataDir: withCatalogue });
  process.env[PGLITE_TEMPLATE_VARIABLE] = template;
  process.env[PGLITE_CATALOGUE_TEMPLATE_VARIABLE] = withCatalogue;
  return [template, withCatalogue];
}

export async function setup(): Promise<() => Promise<void>> {
  // Built side by side: the bundle in a process of its own, PostgreSQL's template on the server.
  const [folders, postgres, bundle] = await Promise.allSettled([pgliteTemplates(), createPostgresTemplate(), buildDataPlaneBundle()]);
  const teardown = async () => {
    if (folders.status === "fulfilled") for (const folder of folders.value) rmSync(folder, { recursive: true, force: true });
    if (bundle.status === "fulfilled") bundle.value.remove();
    if (postgres.status === "fulfilled") await postgres.value?.drop();
  };
  const failed = [folders, postgres, bundle].find((result): result is PromiseRejectedResult => result.status === "rejected");
  if (failed) {
    await teardown();
    throw failed.reason;
  }
  if (postgres.status === "fulfilled" && postgres.value) process.env[POSTGRES_TEMPLATE_VARIABLE] = postgres.value.name;
  if (bundle.status === "fulfilled") process.env[DATA_PLANE_BUNDLE_VARIABLE] = bundle.value.file;
  return teardown;
}
