// The data plane's production bundle (deploy/build/bundle-data-plane.ts), built once per test run by the
// global setup: the test stacks run their data planes from it, as production does (deploy/docker/Dockerfile),
// by plain node with DATA_PLANE_NODE_FLAGS. Through tsx a data plane took about 4.5 s to be ready on a
// 2-core machine (3.3 s of it loading its TypeScript through the loader), from the bundle about 1.3 s.
// GATEWAY_TEST_DATA_PLANE=tsx runs them through tsx again; a test file run outside vitest's setup does too.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { repositoryRoot, type ServiceRuntime } from "../local/service-process";

/** Where the global setup put the bundle: the workers inherit it from the environment. */
export const DATA_PLANE_BUNDLE_VARIABLE = "GATEWAY_TEST_DATA_PLANE_BUNDLE";

/** Builds the bundle into a new temporary folder; returns its file and how to remove the folder. */
export async function buildDataPlaneBundle(): Promise<{ file: string; remove(): void }> {
  const directory = mkdtempSync(path.join(os.tmpdir(), "gateway-test-data-plane-"));
  const file = path.join(directory, "data-plane.mjs");
  const remove = () => rmSync(directory, { recursive: true, force: true });
  try {
    await promisify(execFile)(process.execPath, ["--import", "tsx", "deploy/build/bundle-data-plane.ts", file], { cwd: repositoryRoot });
  } catch (error) {
    remove();
    throw error;
  }
  return { file, remove };
}

/** This run's bundle, if the global setup built one. */
export function sharedDataPlaneBundle(): ServiceRuntime | undefined {
  const file = process.env[DATA_PLANE_BUNDLE_VARIABLE];
  return file ? { kind: "bundle", file } : undefined;
}

/** The runtime of a test stack's data planes: the shared bundle unless GATEWAY_TEST_DATA_PLANE=tsx asks for the sources. */
export function testDataPlaneRuntime(): ServiceRuntime | undefined {
  return process.env.GATEWAY_TEST_DATA_PLANE === "tsx" ? undefined : sharedDataPlaneBundle();
}
