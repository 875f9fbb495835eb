// A control plane on the embedded PGlite in a scratch folder, on free ports, silent: what the tests
// of the admin API start (their own environment variables added).
import { rmSync } from "node:fs";
import { scratchPgliteDir } from "../../../../deploy/test/pglite-template";
import { parseControlPlaneConfig } from "../../src/config";
import { type RunningControlPlane, startControlPlane } from "../../src/control-plane";

export interface EmbeddedControlPlane {
  controlPlane: RunningControlPlane;
  /** Closes it and removes its data folder. */
  stop(): Promise<void>;
}

export async function startEmbeddedControlPlane(adminToken: string, env: Record<string, string> = {}): Promise<EmbeddedControlPlane> {
  const dataDir = scratchPgliteDir("control-plane-");
  const controlPlane = await startControlPlane(
    parseControlPlaneConfig({
      GATEWAY_DATA_DIR: dataDir,
      GATEWAY_ALLOW_WEAK_TOKENS: "true", // short test tokens
      GATEWAY_INTERNAL_TOKEN: "internal",
      GATEWAY_ADMIN_TOKEN: adminToken,
      CONTROL_PLANE_GRPC_PORT: "0",
      CONTROL_PLANE_ADMIN_PORT: "0",
      METRICS_PORT: "0",
      LOG_LEVEL: "silent",
      ...env,
    }),
  ).catch((error: unknown) => {
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  });
  return {
    controlPlane,
    stop: async () => {
      try {
        await controlPlane.close();
      } finally {
        rmSync(dataDir, { recursive: true, force: true }); // also when closing fails (a test closed its database)
      }
    },
  };
}
