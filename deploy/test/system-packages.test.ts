// The test command installs what it may (issue 33, item 18): Chromium and redis-server through apt-get
// as root or through a sudo that asks nothing; elsewhere nothing is run and the preflight names what is missing.
import { describe, expect, it } from "vitest";
import { type InstallEnvironment, installMissing, packageInstaller, type SystemPackage } from "./system-packages";

function machine(options: { isRoot: boolean; commands: string[]; sudoAsks?: boolean; installs?: Set<string> }) {
  const calls: string[] = [];
  const environment: InstallEnvironment = {
    isRoot: options.isRoot,
    has: (command) => options.commands.includes(command),
    run: (command, args) => {
      calls.push([command, ...args].join(" "));
      if (command === "sudo" && args.join(" ") === "-n true") return options.sudoAsks ? 1 : 0;
      const install = args.indexOf("install");
      if (install >= 0) for (const name of args.slice(install + 1).filter((arg) => !arg.startsWith("-"))) options.installs?.add(name);
      return 0;
    },
  };
  return { environment, calls };
}

const packageIn = (installed: Set<string>, name: string): SystemPackage => ({ name, present: () => installed.has(name) });

describe("the packages the test command installs itself", () => {
  it("as root: one apt-get update and one install of what is missing, nothing for what is present", () => {
    const installed = new Set(["redis-server"]);
    const { environment, calls } = machine({ isRoot: true, commands: ["apt-get"], installs: installed });
    const lines: string[] = [];
    const left = installMissing([packageIn(installed, "redis-server"), packageIn(installed, "chromium")], environment, (line) =>
      lines.push(line),
    );
    expect(left).toEqual([]);
    expect(calls).toEqual(["apt-get update -qq", "apt-get install -y -qq chromium"]);
    expect(lines.join("\n")).toContain("Installing chromium with apt-get");
  });

  it("not root: through sudo when it asks no password, else nothing is run", () => {
    expect(packageInstaller(machine({ isRoot: false, commands: ["apt-get", "sudo"] }).environment)).toEqual(["sudo", "-n", "apt-get"]);
    const asking = machine({ isRoot: false, commands: ["apt-get", "sudo"], sudoAsks: true });
    const installed = new Set<string>();
    expect(installMissing([packageIn(installed, "chromium")], asking.environment, () => {}).map((pack) => pack.name)).toEqual(["chromium"]);
    expect(asking.calls).toEqual(["sudo -n true"]);
  });

  it("without apt-get (another distribution): nothing is run and the package stays missing", () => {
    const { environment, calls } = machine({ isRoot: true, commands: [] });
    expect(installMissing([packageIn(new Set(), "chromium")], environment, () => {})).toHaveLength(1);
    expect(calls).toEqual([]);
  });

  it("an install that does not bring the package leaves it missing, for the preflight's message", () => {
    const { environment } = machine({ isRoot: true, commands: ["apt-get"] }); // installs nothing
    expect(installMissing([packageIn(new Set(), "chromium")], environment, () => {}).map((pack) => pack.name)).toEqual(["chromium"]);
  });
});
