// Builds the console (vite, from the installed packages: no network) into services/console/dist, where
// the control plane serves it from. `pnpm start` and the browser tests build it this way; the image
// builds it with `pnpm build:console` (deploy/docker/Dockerfile). The build is not checked in.
import path from "node:path";
import { build } from "vite";

export const CONSOLE_ROOT = path.resolve(import.meta.dirname, "..");

/**
 * Always the production build. Vite takes React's build and the JSX transform from NODE_ENV when it is set,
 * and the test runner sets it to "test" (React's development build: effects run twice, every page asks the
 * API twice): it is "production" for the build's length. `outDir`: another folder than dist/ (a test's own).
 */
export async function buildConsole(outDir?: string): Promise<void> {
  const nodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = "production";
  try {
    await build({
      configFile: path.join(CONSOLE_ROOT, "vite.config.ts"),
      logLevel: "error",
      mode: "production",
      ...(outDir ? { build: { outDir } } : {}),
    });
  } finally {
    if (nodeEnv === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = nodeEnv;
  }
}
