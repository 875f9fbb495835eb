// Where the console's browser tests save their screenshots: .data/console-screenshots/ on every run
// (git-ignored: a test run leaves the tree clean), docs/console/ with UPDATE_CONSOLE_SCREENSHOTS=1 (how
// docs/console.md's pictures are refreshed). The same place and widths as console.test.ts.
import { mkdirSync } from "node:fs";
import path from "node:path";
import type { Locator, Page } from "playwright-core";
import { CONSOLE_ROOT } from "../scripts/build-console";

export const SCREENSHOTS = path.resolve(
  CONSOLE_ROOT,
  process.env.UPDATE_CONSOLE_SCREENSHOTS === "1" ? "../../docs/console" : "../../.data/console-screenshots",
);

export const WIDTHS = [1280, 390] as const;

/** The page at each width, full length (or only `part` of it), as `<name>-<width>.png`; back to 1280 px after. */
export async function screenshots(page: Page, name: string, part?: Locator): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    const file = path.join(SCREENSHOTS, `${name}-${width}.png`);
    await (part ? part.screenshot({ path: file }) : page.screenshot({ path: file, fullPage: true }));
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}
