// Migrating a fresh PGlite folder took about 6 s of each test stack's start on a 2-core machine, and
// the suite starts dozens; copying a folder migrated once takes a fraction of a second. The suite's
// global setup (global-setup.ts) migrates one per run; the stacks and embedded control planes copy it.
// Without it (a test file run outside vitest's setup) they start from an empty folder and migrate.
import { cpSync, mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";

/** Where the global setup put the migrated folder: the workers inherit it from the environment. */
export const PGLITE_TEMPLATE_VARIABLE = "GATEWAY_TEST_PGLITE_TEMPLATE";

/**
 * The migrated folder with the default catalogue loaded, as a control plane's first start loads it
 * (about 1.5 s of that start): what the test stacks copy (database-templates.ts).
 */
export const PGLITE_CATALOGUE_TEMPLATE_VARIABLE = "GATEWAY_TEST_PGLITE_CATALOGUE_TEMPLATE";

/**
 * A new scratch folder for a PGlite database, already migrated when the template exists; with
 * `withCatalogue`, also holding the default catalogue when that template exists (else only migrated).
 */
export function scratchPgliteDir(prefix: string, options: { withCatalogue?: boolean } = {}): string {
  const directory = mkdtempSync(path.join(os.tmpdir(), prefix));
  const template =
    (options.withCatalogue ? process.env[PGLITE_CATALOGUE_TEMPLATE_VARIABLE] : undefined) ?? process.env[PGLITE_TEMPLATE_VARIABLE];
  if (template) cpSync(template, directory, { recursive: true });
  return directory;
}
