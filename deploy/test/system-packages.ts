// What `pnpm test` can install itself when the machine lacks it: Debian packages (Chromium for the
// console's browser tests, the redis-server binary), through apt-get, when this process may run it:
// as root, or through `sudo -n` (a sudo that asks no password). Anything else keeps the preflight's
// message naming what is missing and the command that installs it.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

export interface SystemPackage {
  /** The Debian package that provides it. */
  name: string;
  /** Present once this says so. */
  present(): boolean;
}

export interface InstallEnvironment {
  isRoot: boolean;
  has(command: string): boolean;
  /** Runs a command (its errors to the terminal); its exit status. */
  run(command: string, args: string[]): number;
}

/** The command prefix that may install packages here, or undefined when none may. */
export function packageInstaller(environment: Pick<InstallEnvironment, "isRoot" | "has" | "run">): string[] | undefined {
  if (!environment.has("apt-get")) return undefined;
  if (environment.isRoot) return ["apt-get"];
  if (environment.has("sudo") && environment.run("sudo", ["-n", "true"]) === 0) return ["sudo", "-n", "apt-get"];
  return undefined;
}

/**
 * Installs the packages not present, when this process may; returns those still missing afterwards.
 * One `apt-get update` and one install for all of them.
 */
export function installMissing(packages: SystemPackage[], environment: InstallEnvironment, say: (line: string) => void): SystemPackage[] {
  const missing = packages.filter((pack) => !pack.present());
  if (missing.length === 0) return [];
  const installer = packageInstaller(environment);
  if (!installer) return missing;
  const names = missing.map((pack) => pack.name);
  say(`Installing ${names.join(", ")} with ${installer.join(" ")} (the tests need ${names.length === 1 ? "it" : "them"})...`);
  const [command, ...prefix] = installer as [string, ...string[]];
  const updated = environment.run(command, [...prefix, "update", "-qq"]);
  if (updated === 0) environment.run(command, [...prefix, "install", "-y", "-qq", ...names]);
  return missing.filter((pack) => !pack.present());
}

export const thisMachine: InstallEnvironment = {
  isRoot: process.getuid?.() === 0,
  has: (command) => spawnSync("sh", ["-c", `command -v ${command}`], { stdio: "ignore" }).status === 0,
  run: (command, args) =>
    spawnSync(command, args, { stdio: ["ignore", "ignore", "inherit"], env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } })
      .status ?? 1,
};

/** A package whose presence is a file (Chromium's binary). */
export const fileFromPackage = (name: string, file: string): SystemPackage => ({ name, present: () => existsSync(file) });
