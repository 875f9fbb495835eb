// Entry point: parse configuration, start, print one ready line (JSON) that
// launchers and tests read, stop gracefully on SIGTERM/SIGINT.
import { parseControlPlaneConfig } from "./config";
import { startControlPlane } from "./control-plane";

const config = parseControlPlaneConfig();
const controlPlane = await startControlPlane(config);
console.log(
  JSON.stringify({
    msg: "control-plane ready",
    grpc: controlPlane.grpcAddress,
    admin: controlPlane.adminUrl,
    metrics: controlPlane.metricsUrl,
    database: controlPlane.database.kind,
  }),
);

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await controlPlane.close();
  process.exit(0);
};
process.on("SIGTERM", () => void stop());
process.on("SIGINT", () => void stop());
