// `pnpm start`: the whole gateway on one machine, on the embedded default.
//
// Starts the control plane (PGlite in .data/pglite, or PostgreSQL when
// DATABASE_URL is set), one data plane, and - when no OPENAI_API_KEY (or pool of keys) is
// configured - the mock provider as every upstream (OpenAI, OpenRouter,
// Anthropic and Gemini personas, and the clouds: Bedrock, Vertex AI and Azure
// OpenAI, with their own auth). Creates a project "local"
// with $10.00 of credit on first start, issues a fresh key, prints it, and
// runs until Ctrl-C. Its ports and folder move by the variables of local-settings.ts.
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { buildConsole } from "../../services/console/scripts/build-console";
import { LOCAL_GATEWAY_FILE } from "../../services/control-plane/src/cli/local-gateway-file";
import { localFiles, localPorts } from "./local-settings";
import { mockCloudEnv } from "./mock-clouds";
import { repositoryRoot, startService, type ServiceProcess } from "./service-process";

const env = process.env;
const files = localFiles(env);
const dataDir = files.dir;
const stateFile = path.join(dataDir, LOCAL_GATEWAY_FILE);

interface LocalState {
  internalToken: string;
  adminToken: string;
  adminUrl?: string;
  dataPlaneUrl?: string;
}

/** A path as the operator would type it: relative inside the checkout, whole outside it. */
const shownPath = (file: string) => (file.startsWith(`${repositoryRoot}${path.sep}`) ? path.relative(repositoryRoot, file) : file);

function loadState(): LocalState {
  mkdirSync(dataDir, { recursive: true });
  if (existsSync(stateFile)) return JSON.parse(readFileSync(stateFile, "utf8")) as LocalState;
  // 43 characters each: the planes refuse tokens under 32 (proto/src/token-strength.ts).
  return { internalToken: randomBytes(32).toString("base64url"), adminToken: randomBytes(32).toString("base64url") };
}

async function admin(
  state: LocalState,
  method: string,
  route: string,
  body?: unknown,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`${state.adminUrl}${route}`, {
    method,
    headers: { authorization: `Bearer ${state.adminToken}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

const state = loadState();
const children: ServiceProcess[] = [];
const stopAll = async () => {
  for (const child of children.reverse()) await child.stop("SIGTERM", 10_000);
};
process.on("SIGINT", () => void stopAll().then(() => process.exit(0)));
process.on("SIGTERM", () => void stopAll().then(() => process.exit(0)));

try {
  const ports = localPorts(env);
  // Both planes read METRICS_PORT: one value for both would make the second fail to listen.
  if (env.METRICS_PORT)
    console.error("METRICS_PORT is not passed to the planes: pnpm start takes DATA_PLANE_METRICS_PORT and CONTROL_PLANE_METRICS_PORT");
  const upstream: Record<string, string> = {};
  // OpenAI's key or a pool of them (docs/providers.md, "Pools of keys"): the real OpenAI, not the mock.
  if (!env.OPENAI_API_KEY && !env.OPENAI_API_KEYS && !env.OPENAI_API_KEYS_FILE) {
    // It caches prompts as the providers do, so a conversation's cached share grows as it would upstream.
    const mock = await startService(
      "mock-provider",
      { PORT: String(ports.MOCK_PROVIDER_PORT), MOCK_PROVIDER_PROMPT_CACHE: "on" },
      { echo: false },
    );
    children.push(mock);
    // Every vendor of the default catalogue, answered by the mock's personas.
    upstream.OPENAI_BASE_URL = `${mock.ready.url}/v1`;
    upstream.OPENAI_API_KEY = "mock-provider-key";
    upstream.OPENROUTER_BASE_URL = `${mock.ready.url}/v1`;
    upstream.OPENROUTER_API_KEY = "mock-provider-key";
    upstream.ANTHROPIC_BASE_URL = `${mock.ready.url}/v1`;
    upstream.ANTHROPIC_API_KEY = "mock-provider-key";
    upstream.GOOGLE_BASE_URL = `${mock.ready.url}/v1beta`;
    upstream.GOOGLE_API_KEY = "mock-provider-key";
    // The catalogue's cloud paths too: Claude answers through Bedrock (signed) with no AWS account.
    Object.assign(upstream, await mockCloudEnv(mock.ready.url!, dataDir));
  }

  // The operator console's static files, served by the control plane at /console (docs/console.md).
  // The gateway runs without them: a failed build is said, not fatal.
  // GATEWAY_CONSOLE_DIR: built there instead of services/console/dist (the control plane, given the same variable, serves it).
  const consoleDir = env.GATEWAY_CONSOLE_DIR ? path.resolve(env.GATEWAY_CONSOLE_DIR) : undefined;
  await buildConsole(consoleDir).catch((error: unknown) =>
    console.error(`console not built: ${error instanceof Error ? error.message : error}`),
  );

  const controlPlane = await startService(
    "control-plane",
    {
      GATEWAY_INTERNAL_TOKEN: state.internalToken,
      GATEWAY_ADMIN_TOKEN: state.adminToken,
      GATEWAY_DATA_DIR: files.pglite,
      CONTROL_PLANE_GRPC_PORT: String(ports.CONTROL_PLANE_GRPC_PORT),
      CONTROL_PLANE_ADMIN_PORT: String(ports.CONTROL_PLANE_ADMIN_PORT),
      METRICS_PORT: String(ports.CONTROL_PLANE_METRICS_PORT),
    },
    // A first start on PGlite applies every migration: minutes on a busy machine, not the default minute.
    { echo: true, timeoutMs: 300_000 },
  );
  children.push(controlPlane);
  state.adminUrl = controlPlane.ready.admin;

  const dataPlane = await startService(
    "data-plane",
    {
      ...upstream,
      GATEWAY_INTERNAL_TOKEN: state.internalToken,
      CONTROL_PLANE_ADDRESS: controlPlane.ready.grpc,
      DATA_PLANE_PORT: String(ports.DATA_PLANE_PORT),
      METRICS_PORT: String(ports.DATA_PLANE_METRICS_PORT),
      // The draw journal in the local folder under one name: the next `pnpm start` draws what a killed one answered.
      DRAW_JOURNAL_DIR: env.DRAW_JOURNAL_DIR || path.join(dataDir, "draw-journal"),
      DATA_PLANE_REPLICA_ID: env.DATA_PLANE_REPLICA_ID || "local",
    },
    { echo: true },
  );
  children.push(dataPlane);
  state.dataPlaneUrl = dataPlane.ready.url;
  writeFileSync(stateFile, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });

  const project = await admin(state, "POST", "/admin/projects", { id: "local", name: "Local trials" });
  if (project.status !== 201 && project.status !== 409) throw new Error(`cannot create the local project: ${JSON.stringify(project.json)}`);
  await admin(state, "POST", "/admin/projects/local/topups", { amount_usd: "10.00", idempotency_key: "local-initial-credit" });
  const key = await admin(state, "POST", "/admin/projects/local/keys", { name: `pnpm start ${new Date().toISOString()}` });
  const balance = await admin(state, "GET", "/admin/projects/local/balance");

  console.log(`
Gateway running (${upstream.OPENAI_BASE_URL ? `mock provider at ${upstream.OPENAI_BASE_URL}` : "OpenAI upstream"}; database ${controlPlane.ready.database}).

  data plane    ${dataPlane.ready.url}       (/v1/chat/completions, /v1/responses, /v1/messages, /v1/embeddings, /v1/models)
  admin API     ${controlPlane.ready.admin}  (pnpm gatewayctl ... uses it)
  console       ${controlPlane.ready.admin}/console  (sign in with adminToken from ${shownPath(stateFile)})
  metrics       ${dataPlane.ready.metrics}/metrics, ${controlPlane.ready.metrics}/metrics  (Prometheus, docs/metrics.md)
  project       local, available $${(balance.json.available as { usd: string }).usd}

  API key       ${key.json.key as string}

  curl ${dataPlane.ready.url}/v1/chat/completions \\
    -H "Authorization: Bearer ${key.json.key as string}" -H "Content-Type: application/json" \\
    -d '{"model":"auto","messages":[{"role":"user","content":"Hello"}]}'

Ctrl-C stops everything.`);
} catch (error) {
  console.error(String(error instanceof Error ? error.message : error));
  await stopAll();
  process.exit(1);
}
