// The file `pnpm start` writes (its tokens and addresses) and gatewayctl reads when given no admin API:
// local-gateway.json in GATEWAY_LOCAL_DIR (default .data in the checkout).
import path from "node:path";
import { repositoryRoot } from "../config";

export const LOCAL_GATEWAY_FILE = "local-gateway.json";

export function localGatewayDir(env: NodeJS.ProcessEnv): string {
  return path.resolve(repositoryRoot, env.GATEWAY_LOCAL_DIR || ".data");
}
