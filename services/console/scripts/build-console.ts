// Builds the console (vite, from the installed packages: no network) into services/console/dist, where
// the control plane serves it from. `pnpm start` and the browser tests build it this way; the image
// builds it with `pnpm build:console` (deploy/docker/Dockerfile). The build is not checked in.
import path from "node:path";
import { build } from "vite";

export const CONSOLE_ROOT = path.resolve(import.meta.dirname, "..");

export async function buildConsole(): Promise<void> {
  await build({ configFile: path.join(CONSOLE_ROOT, "vite.config.ts"), logLevel: "error" });
}
