// Each browser test serves a console build of its own (GATEWAY_CONSOLE_DIR): two test files, or a test
// of `pnpm start`, building into the shared dist/ at once would empty it under another's browser.
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { buildConsole } from "../scripts/build-console";

/** Builds the console into a new temporary folder; the control-plane environment that serves it. */
export async function consoleBuildOfItsOwn(): Promise<{ GATEWAY_CONSOLE_DIR: string }> {
  const directory = mkdtempSync(path.join(os.tmpdir(), "console-build-"));
  await buildConsole(directory);
  return { GATEWAY_CONSOLE_DIR: directory };
}
