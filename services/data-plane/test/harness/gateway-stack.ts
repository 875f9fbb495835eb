// Starts the whole gateway as real processes on free ports: the mock
// provider, one or more control planes (on one new PostgreSQL database on
// the machine's server, or a fresh PGlite directory) and one or more data
// planes, spread round-robin over the control planes' gRPC addresses. Tests
// talk to it over HTTP like any client and operator would.
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { providerEnvPrefix } from "@gateway/proto/provider-env";
import { MOCK_AWS_SECRET_ACCESS_KEY, mockCloudEnv } from "../../../../deploy/local/mock-clouds";
import { productionBundle, type ServiceProcess, type ServiceRuntime, startService } from "../../../../deploy/local/service-process";
import { sharedDataPlaneBundle, testDataPlaneRuntime } from "../../../../deploy/test/data-plane-bundle";
import { postgresTemplateClause, withTestPostgres } from "../../../../deploy/test/postgres-template";
import { scratchPgliteDir } from "../../../../deploy/test/pglite-template";
import { TEST_POSTGRES_URL } from "../../../../deploy/test/test-services";

export type Backend = "postgresql" | "pglite";

/** Where each persona of the mock provider lives (its vendor's own version prefix). */
const MOCK_BASE_PATHS: Record<string, string> = { google: "/v1beta" };

export const POSTGRES_ADMIN_URL = TEST_POSTGRES_URL;

export interface StackOptions {
  backend: Backend;
  dataPlanes?: number;
  /** Control-plane replicas on the same database (PostgreSQL only for more than one); data plane i connects to control plane i % count. */
  controlPlanes?: number;
  /** Start the control-plane replicas at the same moment (as a deployment may) instead of one after another. */
  startControlPlanesTogether?: boolean;
  dataPlaneEnv?: Record<string, string>;
  controlPlaneEnv?: Record<string, string>;
  /** More provider names the mock answers for (<NAME>_BASE_URL and <NAME>_API_KEY point at it), besides "openai". */
  mockAsProviders?: string[];
  /** Run the data planes as production does (the bundle, DATA_PLANE_NODE_FLAGS), whatever GATEWAY_TEST_DATA_PLANE says. */
  productionDataPlane?: boolean;
  /** Configure the `bedrock`, `vertex` and `azure` providers on the mock's cloud personas (deploy/local/mock-clouds.ts). */
  clouds?: boolean;
  /**
   * The key the mock requires of every persona (MOCK_PROVIDER_API_KEY), default "upstream-secret-key"; ""
   * accepts any key, for pools of several keys (docs/providers.md, "Pools of keys").
   */
  mockApiKey?: string;
  /** Environment of one data plane only (by index), over everything else; given the mock's URL when it needs it. */
  dataPlaneEnvs?: Record<string, string>[] | ((mockUrl: string) => Record<string, string>[]);
}

export interface TestProject {
  projectId: string;
  key: string;
  keyId: string;
}

export interface MockRequest {
  index: number;
  receivedAt: number;
  path: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
  responseStatus?: number;
  responseBody?: Record<string, unknown>;
  responseText?: string;
}

export interface Hold {
  request_id: string;
  status: "active" | "settled" | "released" | "expired" | "refused";
  amount: { nano: string; usd: string };
  model: string | null;
  access_path: string | null;
  created_at: string;
  expires_at: string;
  closed_at: string | null;
  debited: { nano: string; usd: string } | null;
  unbilled: { nano: string; usd: string } | null;
  refusal: string | null;
  lease: boolean;
}

export interface LedgerEntry {
  kind: string;
  amount: { nano: string; usd: string };
  request_id: string | null;
  model: string | null;
  /** The call's input tokens as billed (cache reads and writes included), on debits. */
  input_tokens?: number | null;
  output_tokens?: number | null;
  /** Debits: the API key of the request. */
  key_id?: string | null;
  created_at?: string;
}

/** Starts every process; if one fails, stops the others that did start, so nothing is left running. */
async function startAll(starts: Promise<ServiceProcess>[]): Promise<ServiceProcess[]> {
  const settled = await Promise.allSettled(starts);
  const failed = settled.find((result): result is PromiseRejectedResult => result.status === "rejected");
  if (!failed) return settled.map((result) => (result as PromiseFulfilledResult<ServiceProcess>).value);
  await Promise.all(settled.map((result) => (result.status === "fulfilled" ? result.value.stop() : undefined)));
  throw failed.reason;
}

export class GatewayStack {
  readonly adminToken = randomBytes(16).toString("hex");
  readonly internalToken = randomBytes(16).toString("hex");
  mock!: ServiceProcess;
  /** Every control-plane replica; `controlPlane` is the first. */
  controlPlanes: ServiceProcess[] = [];
  dataPlanes: ServiceProcess[] = [];
  private databaseName: string | undefined;
  private dataDir: string | undefined;
  /** Where the Vertex key file of a stack with clouds is written. */
  private cloudDir: string | undefined;
  /**
   * The data planes' DRAW_JOURNAL_DIR (each its own directory in it, by replica id): this stack's own,
   * so stacks running at once never share one; a restarted data plane finds what it left there.
   */
  journalDir: string | undefined;
  private controlPlaneEnv: Record<string, string> = {};
  /** What each data plane was started with, to start it again (restartDataPlane). */
  private dataPlaneStarts: { env: Record<string, string | undefined>; label: string; runtime: ServiceRuntime | undefined }[] = [];

  constructor(readonly options: StackOptions) {}

  get mockUrl(): string {
    return this.mock.ready.url!;
  }
  get controlPlane(): ServiceProcess {
    return this.controlPlanes[0]!;
  }
  set controlPlane(process: ServiceProcess) {
    this.controlPlanes[0] = process;
  }
  get adminUrl(): string {
    return this.controlPlane.ready.admin!;
  }
  get url(): string {
    return this.dataPlanes[0]!.ready.url!;
  }
  /** The first data plane's scrape listener (METRICS_PORT), base URL: GET `${metricsUrl}/metrics`. */
  get metricsUrl(): string {
    return this.dataPlanes[0]!.ready.metrics!;
  }
  /**
   * A data plane's state with its details (link, calls, catalogue revision, rate limiting, circuits):
   * GET /health on its metrics port. The public /health says only whether it serves, and why not.
   */
  async dataPlaneHealth<Detail = Record<string, unknown>>(dataPlane = 0): Promise<{ status: string; reason?: string; detail: Detail }> {
    return (await (await fetch(`${this.dataPlanes[dataPlane]!.ready.metrics}/health`)).json()) as never;
  }
  /** The first control plane's scrape listener (METRICS_PORT), base URL. */
  get controlPlaneMetricsUrl(): string {
    return this.controlPlane.ready.metrics!;
  }
  /** The stack's own PostgreSQL database (postgresql backend only). */
  get databaseUrl(): string {
    if (!this.databaseName) throw new Error("the stack has no PostgreSQL database (pglite backend)");
    return POSTGRES_ADMIN_URL.replace(/\/[^/]*$/, `/${this.databaseName}`);
  }

  async start(): Promise<this> {
    const databaseEnv: Record<string, string> = {};
    // A copy of this run's database already migrated and holding the default catalogue, as a control plane
    // leaves it at its first start (deploy/test/database-templates.ts); a truly empty one where the test is
    // about control planes starting together on a fresh database, or one loads another default catalogue.
    const fromTemplate = !this.options.startControlPlanesTogether && !this.options.controlPlaneEnv?.GATEWAY_DEFAULT_CATALOGUE;
    if (this.options.backend === "postgresql") {
      this.databaseName = `gateway_test_${randomBytes(6).toString("hex")}`;
      const template = fromTemplate ? postgresTemplateClause() : "";
      await withTestPostgres((client) => client.query(`CREATE DATABASE ${this.databaseName}${template}`));
      databaseEnv.DATABASE_URL = this.databaseUrl;
    } else {
      this.dataDir = scratchPgliteDir("gateway-pglite-", { withCatalogue: fromTemplate });
      databaseEnv.GATEWAY_DATA_DIR = this.dataDir;
      databaseEnv.DATABASE_URL = "";
    }
    // The mock starts beside the control planes (nothing of one needs the other); the data planes need both.
    const mockStarting = startService("mock-provider", {
      PORT: "0",
      MOCK_PROVIDER_API_KEY: this.options.mockApiKey ?? "upstream-secret-key",
    });
    try {
      await this.startControlPlanes(databaseEnv);
    } finally {
      this.mock = await mockStarting;
    }
    let cloudEnv: Record<string, string> = {};
    if (this.options.clouds) {
      this.cloudDir = mkdtempSync(path.join(tmpdir(), "gateway-clouds-"));
      cloudEnv = await mockCloudEnv(this.mock.ready.url!, this.cloudDir, "upstream-secret-key");
    }
    const { dataPlaneEnvs } = this.options;
    const ownEnvs = typeof dataPlaneEnvs === "function" ? dataPlaneEnvs(this.mock.ready.url!) : dataPlaneEnvs;
    const count = this.options.dataPlanes ?? 1;
    // The production bundle built once for the run (deploy/test/data-plane-bundle.ts), else as service-process.ts chooses.
    const runtime = this.options.productionDataPlane ? (sharedDataPlaneBundle() ?? (await productionBundle())) : testDataPlaneRuntime();
    this.journalDir = mkdtempSync(path.join(tmpdir(), "gateway-draw-journal-"));
    this.dataPlaneStarts = Array.from({ length: count }, (_, index) => ({
      env: {
        GATEWAY_INTERNAL_TOKEN: this.internalToken,
        CONTROL_PLANE_ADDRESS: this.controlPlanes[index % this.controlPlanes.length]!.ready.grpc,
        DATA_PLANE_PORT: "0",
        METRICS_PORT: "0",
        DATA_PLANE_REPLICA_ID: `test-data-plane-${index}`,
        DRAW_JOURNAL_DIR: this.journalDir,
        OPENAI_BASE_URL: `${this.mock.ready.url}/v1`,
        OPENAI_API_KEY: "upstream-secret-key",
        ...Object.fromEntries(
          (this.options.mockAsProviders ?? []).flatMap((name) => {
            const prefix = providerEnvPrefix(name);
            return [
              [`${prefix}_BASE_URL`, `${this.mock.ready.url}${MOCK_BASE_PATHS[name] ?? "/v1"}`],
              [`${prefix}_API_KEY`, "upstream-secret-key"],
            ];
          }),
        ),
        LOG_LEVEL: "warn",
        ...cloudEnv,
        ...this.options.dataPlaneEnv,
        ...ownEnvs?.[index],
      },
      label: `data-plane-${index}`,
      runtime,
    }));
    this.dataPlanes = await startAll(this.dataPlaneStarts.map(({ env, label }) => startService("data-plane", env, { label, runtime })));
    return this;
  }

  private async startControlPlanes(databaseEnv: Record<string, string>): Promise<void> {
    this.controlPlaneEnv = {
      ...databaseEnv,
      GATEWAY_INTERNAL_TOKEN: this.internalToken,
      GATEWAY_ADMIN_TOKEN: this.adminToken,
      CONTROL_PLANE_GRPC_PORT: "0",
      CONTROL_PLANE_ADMIN_PORT: "0",
      METRICS_PORT: "0",
      LOG_LEVEL: "warn",
      ...this.options.controlPlaneEnv,
    };
    const controlPlaneCount = this.options.controlPlanes ?? 1;
    if (controlPlaneCount > 1 && this.options.backend !== "postgresql")
      throw new Error("several control planes need the postgresql backend");
    const startControlPlane = (index: number) =>
      startService("control-plane", this.controlPlaneEnv, controlPlaneCount > 1 ? { label: `control-plane-${index}` } : {});
    if (this.options.startControlPlanesTogether) {
      this.controlPlanes = await startAll(Array.from({ length: controlPlaneCount }, (_, index) => startControlPlane(index)));
    } else {
      for (let index = 0; index < controlPlaneCount; index++) this.controlPlanes.push(await startControlPlane(index));
    }
  }

  /** Starts data plane `index` again, as it was first started (same replica id; new ports), after it stopped or was killed. */
  async restartDataPlane(index: number): Promise<void> {
    const { env, label, runtime } = this.dataPlaneStarts[index]!;
    this.retired.push(this.dataPlanes[index]!);
    this.dataPlanes[index] = await startService("data-plane", env, { label: `${label}-restarted`, runtime });
  }

  /** Starts the control plane again on the same database and ports (after `controlPlane.stop()`), with `env` changed. */
  async restartControlPlane(env: Record<string, string> = {}): Promise<void> {
    this.retired.push(this.controlPlane);
    this.controlPlaneEnv = { ...this.controlPlaneEnv, ...env };
    this.controlPlane = await startService("control-plane", {
      ...this.controlPlaneEnv,
      CONTROL_PLANE_GRPC_PORT: this.controlPlane.ready.grpc!.split(":").at(-1)!,
      CONTROL_PLANE_ADMIN_PORT: new URL(this.controlPlane.ready.admin!).port,
      METRICS_PORT: new URL(this.controlPlane.ready.metrics!).port,
    });
  }

  async stop(): Promise<void> {
    await Promise.all(this.dataPlanes.map((process) => process.stop()));
    await Promise.all(this.controlPlanes.map((process) => process.stop()));
    await this.mock?.stop();
    if (this.databaseName) {
      await withTestPostgres((client) => client.query(`DROP DATABASE IF EXISTS ${this.databaseName} WITH (FORCE)`));
    }
    if (this.dataDir) rmSync(this.dataDir, { recursive: true, force: true });
    if (this.cloudDir) rmSync(this.cloudDir, { recursive: true, force: true });
    if (this.journalDir) rmSync(this.journalDir, { recursive: true, force: true });
    this.assertNoSecretsLogged();
  }

  /**
   * Every suite's stack ends with this check, so the whole test run proves it
   * (issue 7): no line the gateway printed holds a key it issued, the admin or
   * internal token, or the provider key; with clouds, no AWS secret, Google token or signature either.
   * (The mock is the upstream, not the gateway.)
   */
  private assertNoSecretsLogged(): void {
    const secrets = [this.adminToken, this.internalToken, "upstream-secret-key", ...this.issuedKeys];
    if (this.options.clouds) secrets.push(MOCK_AWS_SECRET_ACCESS_KEY, "ya29.", "Signature=", "PRIVATE KEY", "IQoJmock");
    // Whatever credential a test gave one data plane (a wrong AWS secret, a wrong Azure key) is a secret too.
    for (const start of this.dataPlaneStarts)
      for (const [name, value] of Object.entries(start.env)) {
        if (value && value.length >= 8 && /(SECRET_ACCESS_KEY|_API_KEY|_BEARER_TOKEN|SESSION_TOKEN)$/.test(name)) secrets.push(value);
        if (value) secrets.push(...poolKeys(name, value).filter((key) => key.length >= 8));
      }
    for (const process of [...this.dataPlanes, ...this.controlPlanes, ...this.retired]) {
      const output = process.output();
      const leaked = secrets.find((secret) => output.includes(secret));
      if (leaked) throw new Error(`${process.name} logged a secret (${leaked.slice(0, 6)}...)`);
    }
  }

  /** Keys issued through createProject, for the log check. */
  private readonly issuedKeys: string[] = [];
  /** Processes replaced by a restart, still checked at the end. */
  private readonly retired: ServiceProcess[] = [];

  /** An admin API call, to the first control plane unless `controlPlane` names another replica. */
  async admin<T = Record<string, unknown>>(
    method: string,
    route: string,
    body?: unknown,
    controlPlane = 0,
  ): Promise<{ status: number; json: T }> {
    const response = await fetch(`${this.controlPlanes[controlPlane]!.ready.admin}${route}`, {
      method,
      headers: { authorization: `Bearer ${this.adminToken}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, json: (await response.json()) as T };
  }

  /** Loads a catalogue file through the admin API and waits until every data plane serves it. */
  async loadCatalogue(file: unknown): Promise<void> {
    const loaded = await this.admin<{ revision: string }>("PUT", "/admin/catalogue?source=test", file);
    if (loaded.status !== 200) throw new Error(`catalogue rejected: ${JSON.stringify(loaded.json)}`);
    const deadline = Date.now() + 10_000;
    for (const [index, dataPlane] of this.dataPlanes.entries()) {
      for (;;) {
        const health = await this.dataPlaneHealth<{ catalogue_revision?: string }>(index);
        if (health.detail?.catalogue_revision === loaded.json.revision) break;
        if (Date.now() > deadline) throw new Error(`${dataPlane.name} did not receive catalogue revision ${loaded.json.revision}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  }

  /** A new project with a key and, optionally, credit. */
  async createProject(options: { balanceUsd?: string; dailyCapUsd?: string } = {}): Promise<TestProject> {
    const projectId = `p${randomBytes(5).toString("hex")}`;
    const created = await this.admin("POST", "/admin/projects", { id: projectId, name: `test ${projectId}` });
    if (created.status !== 201) throw new Error(`create project: ${JSON.stringify(created.json)}`);
    if (options.balanceUsd)
      await this.admin("POST", `/admin/projects/${projectId}/topups`, { amount_usd: options.balanceUsd, idempotency_key: "initial" });
    if (options.dailyCapUsd) await this.admin("PATCH", `/admin/projects/${projectId}/limits`, { daily_cap_usd: options.dailyCapUsd });
    const key = await this.admin<{ key: string; id: string }>("POST", `/admin/projects/${projectId}/keys`, {});
    this.issuedKeys.push(key.json.key);
    return { projectId, key: key.json.key, keyId: key.json.id };
  }

  /** Issues another key of a project (with its own limits, if given); it is checked for in the logs like the others. */
  async issueKey(projectId: string, body: Record<string, unknown> = {}): Promise<{ key: string; keyId: string }> {
    const issued = await this.admin<{ key: string; id: string }>("POST", `/admin/projects/${projectId}/keys`, body);
    if (issued.status !== 201) throw new Error(`issue key: ${JSON.stringify(issued.json)}`);
    this.issuedKeys.push(issued.json.key);
    return { key: issued.json.key, keyId: issued.json.id };
  }

  /** Rotates a key; the successor is checked for in the logs like the others. */
  async rotateKey(keyId: string, graceSeconds: number): Promise<{ key: string; keyId: string }> {
    const rotated = await this.admin<{ key: { key: string; id: string } }>("POST", `/admin/keys/${keyId}/rotate`, {
      grace_seconds: graceSeconds,
    });
    if (rotated.status !== 201) throw new Error(`rotate key: ${JSON.stringify(rotated.json)}`);
    this.issuedKeys.push(rotated.json.key.key);
    return { key: rotated.json.key.key, keyId: rotated.json.key.id };
  }

  /**
   * The project's ledger once every running data plane's draws have landed: an answer under a
   * budget lease does not wait for its debit (docs/money.md), so it may reach the ledger a few
   * milliseconds after the client got it.
   */
  async ledger(projectId: string): Promise<LedgerEntry[]> {
    await this.drawsLanded();
    const { json } = await this.admin<{ data: LedgerEntry[] }>("GET", `/admin/projects/${projectId}/ledger?limit=10000`);
    return json.data;
  }

  /** Waits until no running data plane has draws under way (`gateway_draws_under_way`), for at most `timeoutMs`. */
  async drawsLanded(timeoutMs = 5_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    const underWay = async (url: string) => {
      const text = await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(1_000) }).then(
        (response) => response.text(),
        () => "",
      ); // a stopped data plane has none
      return Number(/^gateway_draws_under_way (\S+)$/m.exec(text)?.[1] ?? 0);
    };
    for (const dataPlane of this.dataPlanes) {
      while ((await underWay(dataPlane.ready.metrics!)) > 0) {
        if (Date.now() > deadline) throw new Error(`${dataPlane.name}: draws still under way after ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    }
  }

  /**
   * Every debit of the project by request id, read from the database (PostgreSQL backend): the admin
   * listing stops at 10,000 entries, a load test's ledger does not. Once draws landed, as `ledger`.
   */
  async debitsByRequest(projectId: string): Promise<Map<string, bigint>> {
    await this.drawsLanded();
    if (!this.databaseName) throw new Error("debitsByRequest needs the postgresql backend");
    const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL.replace(/\/[^/]*$/, `/${this.databaseName}`) });
    await client.connect();
    try {
      const { rows } = await client.query<{ request_id: string; amount_nano: string }>(
        "SELECT request_id, amount_nano::text FROM ledger_entries WHERE project_id = $1 AND kind = 'debit'",
        [projectId],
      );
      const debits = new Map(rows.map((row) => [row.request_id, -BigInt(row.amount_nano)]));
      if (debits.size !== rows.length) throw new Error("two debits with one request id");
      return debits;
    } finally {
      await client.end();
    }
  }

  /** The project's balance, once every running data plane's draws have landed (as for the ledger). */
  async balance(projectId: string): Promise<{ balance: { nano: string }; held: { nano: string }; available: { nano: string } }> {
    await this.drawsLanded();
    return (await this.admin<never>("GET", `/admin/projects/${projectId}/balance`)).json;
  }

  /**
   * Waits until nothing of the project is held: per-request holds settle or expire, and budget
   * leases go back once idle (LEASE_IDLE_MS) or expire. Throws after `timeoutMs`.
   */
  async waitHeldZero(projectId: string, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while ((await this.balance(projectId)).held.nano !== "0") {
      if (Date.now() > deadline) throw new Error(`held still ${(await this.balance(projectId)).held.nano} after ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** The project's holds with this status (the admin API lists active ones by default). */
  async holds(projectId: string, status: Hold["status"] = "active"): Promise<Hold[]> {
    const { status: code, json } = await this.admin<{ data: Hold[] }>(
      "GET",
      `/admin/projects/${projectId}/holds?status=${status}&limit=10000`,
    );
    if (code !== 200) throw new Error(`holds: ${JSON.stringify(json)}`);
    return json.data;
  }

  async mockRequests(): Promise<MockRequest[]> {
    const response = await fetch(`${this.mockUrl}/_mock/requests`);
    return ((await response.json()) as { requests: MockRequest[] }).requests;
  }

  /** The requests the mock received whose JSON body contains `marker`. */
  async mockRequestsWith(marker: string): Promise<MockRequest[]> {
    return (await this.mockRequests()).filter((request) => JSON.stringify(request.body).includes(marker));
  }

  async mockScript(script: Record<string, unknown>): Promise<void> {
    const response = await fetch(`${this.mockUrl}/_mock/scripts`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(script),
    });
    if (!response.ok) throw new Error(`mock script rejected: ${await response.text()}`);
  }

  /** POST to the data plane with a key, JSON body. */
  post(route: string, key: string | undefined, body: unknown, dataPlane = 0, signal?: AbortSignal): Promise<Response> {
    return fetch(`${this.dataPlanes[dataPlane]!.ready.url}${route}`, {
      method: "POST",
      signal,
      headers: { "content-type": "application/json", ...(key ? { authorization: `Bearer ${key}` } : {}) },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });
  }
}

/** The keys of a pool variable (`<NAME>_API_KEYS` entries, a `<NAME>_API_KEYS_FILE`'s `key` fields, read if it is still there). */
function poolKeys(name: string, value: string): string[] {
  if (/_API_KEYS$/.test(name)) return value.split(",").map((entry) => entry.trim().split(";")[0]!);
  if (!/_API_KEYS_FILE$/.test(name) || !existsSync(value)) return [];
  try {
    return (JSON.parse(readFileSync(value, "utf8")) as { key?: unknown }[]).flatMap((entry) =>
      typeof entry.key === "string" ? [entry.key] : [],
    );
  } catch {
    return [];
  }
}

export async function startStack(options: StackOptions): Promise<GatewayStack> {
  const stack = new GatewayStack(options);
  try {
    return await stack.start();
  } catch (error) {
    await stack.stop().catch(() => {});
    throw error;
  }
}

/** usage.cost (USD number) as integer nano-USD. */
export const costToNano = (cost: number): bigint => BigInt(Math.round(cost * 1e9));

export const marker = (): string => `mock:${randomBytes(6).toString("hex")}`;
