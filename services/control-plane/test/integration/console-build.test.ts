// The console's production build (services/console, served by console-routes.ts) holds no source maps
// (issue 33, item 16): the console's source is not served from the admin port.
// `pnpm build:console --sourcemap` still makes them, for debugging.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import Fastify from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerConsoleRoutes } from "../../src/admin/console-routes";
import { buildConsole } from "../../../console/scripts/build-console";

describe("the console's production build", () => {
  const outDir = mkdtempSync(path.join(os.tmpdir(), "console-build-"));
  const files = () => readdirSync(outDir, { recursive: true, encoding: "utf8" });

  beforeAll(async () => {
    await buildConsole(outDir); // a folder of its own, as each browser test builds (console/test/console-build.ts)
  }, 180_000);

  afterAll(() => rmSync(outDir, { recursive: true, force: true }));

  it("has no source map, and its scripts point to none", () => {
    const scripts = files().filter((file) => file.endsWith(".js"));
    expect(scripts.length).toBeGreaterThan(0);
    expect(files().filter((file) => file.endsWith(".map"))).toEqual([]);
    for (const script of scripts) expect(readFileSync(path.join(outDir, script), "utf8")).not.toContain("sourceMappingURL");
  });

  it("is served without one: the map's address is a 404", async () => {
    const app = Fastify();
    registerConsoleRoutes(app, outDir);
    const script = files().find((file) => file.endsWith(".js"))!;
    const served = await app.inject({ method: "GET", url: `/console/${script}` });
    expect(served.statusCode).toBe(200);
    expect((await app.inject({ method: "GET", url: `/console/${script}.map` })).statusCode).toBe(404);
    await app.close();
  });
});
