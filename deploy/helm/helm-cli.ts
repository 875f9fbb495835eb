// `pnpm helm <args>`: the Helm CLI of helm-binary.ts, e.g. `pnpm helm lint deploy/helm/model-gateway`.
import { spawnSync } from "node:child_process";
import { helmBinary } from "./helm-binary";

const result = spawnSync(helmBinary(), process.argv.slice(2), { stdio: "inherit" });
if (result.error) throw result.error;
process.exit(result.status ?? 1);
