// Screenshots of a console page at 1280 and 390 px, full length: to .data/console-screenshots/ on every run
// (git-ignored: a test run leaves the tree clean), and to docs/console/ with UPDATE_CONSOLE_SCREENSHOTS=1
// (how docs/console.md's pictures are refreshed).
import { mkdirSync } from "node:fs";
import path from "node:path";
import type { Locator, Page } from "playwright-core";
import { expect } from "vitest";
import { CONSOLE_ROOT } from "../scripts/build-console";

export const SCREENSHOTS = path.resolve(
  CONSOLE_ROOT,
  process.env.UPDATE_CONSOLE_SCREENSHOTS === "1" ? "../../docs/console" : "../../.data/console-screenshots",
);
export const WIDTHS = [1280, 390] as const;

/**
 * `<name>-1280.png` and `<name>-390.png` (of the whole page, or only of `part`), none of the page wider than
 * the window; the page is back at 1280 px after.
 */
export async function pageScreenshots(page: Page, name: string, part?: Locator): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    const file = path.join(SCREENSHOTS, `${name}-${width}.png`);
    await (part ? part.screenshot({ path: file }) : page.screenshot({ path: file, fullPage: true }));
    // Nothing reaches past the window's right edge (tables scroll inside their own box).
    const beyond = await page
      .locator("body *")
      .evaluateAll(
        (elements, right) =>
          elements
            .filter((element) => element.getBoundingClientRect().right > right + 1 && !element.closest(".table-wrap"))
            .map((element) => `${element.tagName} ${element.className}`),
        width,
      );
    expect(beyond, `${name} at ${width} px`).toEqual([]);
  }
  await page.setViewportSize({ width: 1280, height: 900 });
  expect(await unlabelled(page), `${name}: controls without a name`).toEqual([]);
}

/**
 * The page's controls that a screen reader could not name: a field without a <label> or aria-label, a button
 * or link without text or aria-label. (Every one of them is reachable by Tab: they are native controls.)
 */
export function unlabelled(page: Page): Promise<string[]> {
  return page.locator("input:not([type=hidden]), select, textarea, button, a[href]").evaluateAll((controls) =>
    controls
      .filter((control) => {
        const named = control.getAttribute("aria-label") || control.getAttribute("aria-labelledby");
        // A form field (the root typecheck has no DOM types: its labels are read through a narrow cast).
        const labels = (control as unknown as { labels: { length: number } | null }).labels;
        if (["INPUT", "SELECT", "TEXTAREA"].includes(control.tagName)) return !named && (labels?.length ?? 0) === 0;
        return !named && (control.textContent ?? "").trim() === "";
      })
      .map((control) => control.outerHTML.slice(0, 120)),
  );
}
