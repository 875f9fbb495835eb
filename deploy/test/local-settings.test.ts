// `pnpm start`'s ports and folder (deploy/local/local-settings.ts): one variable each, every default
// distinct, a bad value refused before anything starts, and the README's list naming them all.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { LOCAL_PORT_VARIABLES, LOCAL_PORTS, localFiles, localPorts } from "../local/local-settings";
import { repositoryRoot } from "../local/service-process";

describe("pnpm start's settings", () => {
  it("gives every listener its own default port, the metrics ports one per plane", () => {
    const ports = localPorts({});
    expect(ports).toEqual(LOCAL_PORTS);
    expect(new Set(Object.values(ports)).size).toBe(LOCAL_PORT_VARIABLES.length);
    expect(ports.DATA_PLANE_METRICS_PORT).toBe(9464);
    expect(ports.CONTROL_PLANE_METRICS_PORT).toBe(9465);
  });

  it("moves each port by its variable; METRICS_PORT moves none", () => {
    const moved = Object.fromEntries(LOCAL_PORT_VARIABLES.map((name, index) => [name, String(20_000 + index)]));
    expect(Object.values(localPorts(moved))).toEqual(LOCAL_PORT_VARIABLES.map((_, index) => 20_000 + index));
    expect(localPorts({ METRICS_PORT: "7000" })).toEqual(LOCAL_PORTS);
    expect(localPorts({ DATA_PLANE_METRICS_PORT: "0" }).DATA_PLANE_METRICS_PORT).toBe(0);
  });

  it.each(["x", "-1", "65536", "80.5"])("refuses %j as a port, naming the variable", (value) => {
    expect(() => localPorts({ CONTROL_PLANE_METRICS_PORT: value })).toThrow(/^CONTROL_PLANE_METRICS_PORT must be a port number/);
  });

  it("keeps its state file and PGlite database in GATEWAY_LOCAL_DIR, .data by default", () => {
    expect(localFiles({})).toEqual({ dir: path.join(repositoryRoot, ".data"), pglite: path.join(repositoryRoot, ".data/pglite") });
    expect(localFiles({ GATEWAY_LOCAL_DIR: "/tmp/second" })).toEqual({ dir: "/tmp/second", pglite: "/tmp/second/pglite" });
    expect(localFiles({ GATEWAY_LOCAL_DIR: "/tmp/second", GATEWAY_DATA_DIR: "/srv/pglite" }).pglite).toBe("/srv/pglite");
  });

  it("the README lists every variable that moves it", () => {
    const readme = readFileSync(path.join(repositoryRoot, "README.md"), "utf8");
    for (const name of [...LOCAL_PORT_VARIABLES, "GATEWAY_LOCAL_DIR"])
      expect(readme, name).toMatch(new RegExp(`^\\| \`${name}\` \\| \`[^\`]+\` \\|`, "m"));
  });
});
