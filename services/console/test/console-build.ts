// Each browser test serves a console build of its own (GATEWAY_CONSOLE_DIR): two test files, or a test
// of `pnpm start`, building into the shared dist/ at once would empty it under another's browser.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { buildConsole } from "../scripts/build-console";

const built: string[] = [];

/** Builds the console into a new temporary folder; the control-plane environment that serves it. */
export async function consoleBuildOfItsOwn(): Promise<{ GATEWAY_CONSOLE_DIR: string }> {
  const directory = mkdtempSync(path.join(os.tmpdir(), "console-build-"));
  built.push(directory);
  await buildConsole(directory);
  return { GATEWAY_CONSOLE_DIR: directory };
}

/** Removes the builds this test file made: once the control planes serving them have stopped. */
export function removeConsoleBuilds(): void {
  for (const directory of built.splice(0)) rmSync(directory, { recursive: true, force: true });
}
