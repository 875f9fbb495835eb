// Small files named for what they hold (issue 33, item 17): no source file of a service passes 400
// lines (generated files aside), so a file that outgrows one responsibility is split when it does,
// not found later. And the import-cycle check reads every service's sources, the console's .tsx too.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { repositoryRoot } from "../local/service-process";

const MAX_LINES = 400;

/** Every .ts and .tsx file under services/<name>/src, outside generated/ folders (regenerated, never edited). */
function serviceSources(): string[] {
  const services = path.join(repositoryRoot, "services");
  return readdirSync(services).flatMap((service) =>
    readdirSync(path.join(services, service, "src"), { recursive: true, encoding: "utf8" })
      .filter((file) => /\.tsx?$/.test(file) && !file.split(path.sep).includes("generated"))
      .map((file) => path.join("services", service, "src", file)),
  );
}

const lineCount = (file: string) => readFileSync(path.join(repositoryRoot, file), "utf8").trimEnd().split("\n").length;

describe("source layout", () => {
  it(`no service source file passes ${MAX_LINES} lines`, () => {
    const files = serviceSources();
    expect(files.length).toBeGreaterThan(100);
    expect(files.some((file) => file.endsWith(".tsx"))).toBe(true);
    const long = files.map((file) => ({ file, lines: lineCount(file) })).filter(({ lines }) => lines > MAX_LINES);
    expect(long).toEqual([]);
  });

  it("`pnpm cycles` reads the .ts and .tsx of every service", () => {
    const scripts = JSON.parse(readFileSync(path.join(repositoryRoot, "package.json"), "utf8")).scripts as Record<string, string>;
    expect(scripts.cycles).toMatch(/^madge --circular --extensions ts,tsx .* services /);
  });
});
