// Where the console's browser tests save their screenshots: .data/console-screenshots/ on every run
// (git-ignored: a test run leaves the tree clean), docs/console/ with UPDATE_CONSOLE_SCREENSHOTS=1 (how
// docs/console.md's pictures are refreshed). The same place and widths as console.test.ts.
import { mkdirSync } from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { CONSOLE_ROOT } from "../scripts/build-console";

export const SCREENSHOTS = path.resolve(
  CONSOLE_ROOT,
  process.env.UPDATE_CONSOLE_SCREENSHOTS === "1" ? "../../docs/console" : "../../.data/console-screenshots",
);

export const WIDTHS = [1280, 390] as const;

/** The page at each width, full length, as `<name>-<width>.png`; back to 1280 px after. */
export async function screenshots(page: Page, name: string, widths: readonly number[] = WIDTHS): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  for (const width of widths) {
    await page.setViewportSize({ width, height: 900 });
    await page.screenshot({ path: path.join(SCREENSHOTS, `${name}-${width}.png`), fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}
