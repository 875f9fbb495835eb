// The system's Chromium (Debian's `chromium` package; .ci/run installs it) driven by playwright-core:
// Playwright's own browser builds cannot be downloaded here. Headless, and without the sandbox, which
// Chromium refuses to run as root (CI runs as root).
import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";
import { CHROMIUM } from "./chromium-path";

export function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: apt-get install -y chromium (or set CHROMIUM_PATH)`);
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox"] });
}
