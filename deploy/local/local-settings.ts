// What `pnpm start` (start-local.ts) listens on and where it keeps its files, each moved by one variable:
// set every one of them to run a second local gateway beside the first (README, "Two commands").
import path from "node:path";
import { localGatewayDir } from "../../services/control-plane/src/cli/local-gateway-file";

/** The port variables `pnpm start` reads, with their defaults; 0 = any free port. */
export const LOCAL_PORTS = {
  DATA_PLANE_PORT: 8080,
  DATA_PLANE_METRICS_PORT: 9464,
  CONTROL_PLANE_ADMIN_PORT: 8081,
  CONTROL_PLANE_GRPC_PORT: 50051,
  CONTROL_PLANE_METRICS_PORT: 9465,
  MOCK_PROVIDER_PORT: 8090,
} as const;

export type LocalPortVariable = keyof typeof LOCAL_PORTS;

export const LOCAL_PORT_VARIABLES = Object.keys(LOCAL_PORTS) as LocalPortVariable[];

/** Each port as set (a whole number 0-65535) or its default; a bad value stops the launcher before anything starts. */
export function localPorts(env: NodeJS.ProcessEnv): Record<LocalPortVariable, number> {
  const ports = {} as Record<LocalPortVariable, number>;
  for (const name of LOCAL_PORT_VARIABLES) {
    const text = env[name];
    const port = text ? Number(text) : LOCAL_PORTS[name];
    if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new Error(`${name} must be a port number (0-65535), not ${text}`);
    ports[name] = port;
  }
  return ports;
}

/** The folder of `pnpm start`'s state file and, unless GATEWAY_DATA_DIR says otherwise, its PGlite database. */
export function localFiles(env: NodeJS.ProcessEnv): { dir: string; pglite: string } {
  const dir = localGatewayDir(env);
  return { dir, pglite: env.GATEWAY_DATA_DIR || path.join(dir, "pglite") };
}
