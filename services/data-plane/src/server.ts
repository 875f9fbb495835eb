// Entry point: parse configuration, start, print one ready line (JSON) that
// launchers and tests read, drain on SIGTERM/SIGINT.
import { parseDataPlaneConfig } from "./config";
import { startDataPlane } from "./data-plane";

const config = parseDataPlaneConfig();
const dataPlane = await startDataPlane(config);

// Registered before waiting for the catalogue: the server is listening already, so a SIGTERM now must drain too.
let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await dataPlane.close();
  process.exit(0);
};
process.on("SIGTERM", () => void stop());
process.on("SIGINT", () => void stop());

const catalogue = await dataPlane.catalogueReady(15_000);
if (!stopping) console.log(JSON.stringify({ msg: "data-plane ready", url: dataPlane.url, metrics: dataPlane.metricsUrl, catalogue }));
