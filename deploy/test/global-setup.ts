// vitest's global setup: runs once, before the test files, in the main process.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { openDatabase } from "../../services/control-plane/src/database/connect";
import { PGLITE_TEMPLATE_VARIABLE } from "./pglite-template";

export async function setup(): Promise<() => void> {
  // One migrated PGlite folder for every test stack to copy (pglite-template.ts).
  const template = mkdtempSync(path.join(os.tmpdir(), "gateway-pglite-template-"));
  const database = await openDatabase({ databaseUrl: undefined, dataDir: template });
  await database.close();
  process.env[PGLITE_TEMPLATE_VARIABLE] = template;
  return () => rmSync(template, { recursive: true, force: true });
}
