// What the benchmark measures, started as real processes: the mock provider
// (the upstream of everything), a control plane (PGlite in a temporary
// directory, or a scratch PostgreSQL database), a data plane with every
// feature on (the clouds too: Bedrock, Vertex AI and Azure OpenAI on the mock's
// cloud personas), and the undici pass-through floor. Pins the gateway's processes
// and the floor to the gateway CPUs, the mock to the load CPUs. The data plane
// runs as production runs it (its bundle, built into a temporary directory, by
// node with DATA_PLANE_NODE_FLAGS) unless dataPlaneRuntime is "tsx".
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { bundleDataPlane } from "../build/bundle-data-plane";
import { mockCloudEnv } from "../local/mock-clouds";
import { repositoryRoot, type ServiceProcess, type ServiceRuntime, startService } from "../local/service-process";
import { pin } from "./process-stats";

export interface StackOptions {
  backend: "pglite" | "postgresql";
  postgresUrl: string;
  redisUrl: string;
  /** CPU lists for taskset, or undefined to leave scheduling to the kernel. */
  gatewayCpus: string | undefined;
  loadCpus: string | undefined;
  /** Extra environment for the data plane (e.g. NODE_OPTIONS for a CPU profile). */
  dataPlaneEnv?: Record<string, string>;
  controlPlaneEnv?: Record<string, string>;
  /** bundle: the production bundle (default); tsx: the TypeScript sources through tsx, as `pnpm start` runs them. */
  dataPlaneRuntime?: "bundle" | "tsx";
}

export interface Floor {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

const UPSTREAM_KEY = "bench-upstream-key";

/**
 * The clouds' bench models (loadCloudModels): each with the cloud's path alone, so a chat completions client reaches Claude on
 * Bedrock (Signature V4 per call, AWS's binary event stream, Anthropic's events translated) or Gemini on Vertex AI (a cached
 * OAuth2 token).
 */
export const CLOUD_MODELS = { bedrock: "anthropic/claude-sonnet-4-on-bedrock", vertex: "google/gemini-2.5-flash-on-vertex" } as const;
/** The machine's PostgreSQL and Redis, unless BENCH_POSTGRES_URL / BENCH_REDIS_URL name others. */
export const BENCH_POSTGRES_URL = process.env.BENCH_POSTGRES_URL ?? "postgresql://postgres@127.0.0.1:5432/test";
export const BENCH_REDIS_URL = process.env.BENCH_REDIS_URL ?? "redis://127.0.0.1:6379";

export const upstreamHeaders = { authorization: `Bearer ${UPSTREAM_KEY}` };

function startFloor(upstreamUrl: string): Promise<Floor> {
  const child = spawn(process.execPath, ["--import", "tsx", "deploy/bench/passthrough-floor.ts"], {
    cwd: repositoryRoot,
    env: { ...process.env, UPSTREAM_URL: upstreamUrl, UPSTREAM_API_KEY: UPSTREAM_KEY, PORT: "0" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return new Promise((resolve, reject) => {
    let output = "";
    const timer = setTimeout(() => reject(new Error(`floor did not start: ${output}`)), 30_000);
    child.stdout!.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const ready = /^\{"msg":"floor ready","url":"([^"]+)"\}$/m.exec(output);
      if (!ready) return;
      clearTimeout(timer);
      child.stdout!.removeAllListeners("data");
      child.stdout!.resume();
      resolve({
        url: ready[1]!,
        child,
        stop: async () => {
          child.kill("SIGTERM");
          await exited;
        },
      });
    });
    void exited.then(() => reject(new Error(`floor exited before it was ready: ${output}`)));
  });
}

/**
 * After start-up, a service's stdout (its JSON log, one line per request) is read and dropped
 * instead of being collected in memory by the launcher for the whole run; the last 16 KB are kept.
 */
function drainLog(service: ServiceProcess): () => string {
  let tail = "";
  const stdout = service.child.stdout!;
  stdout.removeAllListeners("data");
  stdout.on("data", (chunk: Buffer) => {
    tail = (tail + chunk.toString()).slice(-16_384);
  });
  return () => tail;
}

export class BenchStack {
  readonly adminToken = randomBytes(16).toString("hex");
  readonly internalToken = randomBytes(16).toString("hex");
  mock!: ServiceProcess;
  controlPlane!: ServiceProcess;
  dataPlane!: ServiceProcess;
  /** What the stack's data plane runs: the working tree's bundle (or its TypeScript through tsx). */
  dataPlaneRuntime!: ServiceRuntime;
  floor!: Floor;
  projectId = `bench${Date.now().toString(36)}`;
  key = "";
  /** The last lines each service logged. */
  readonly logTails = new Map<string, () => string>();
  private dataDir: string | undefined;
  private bundleDir: string | undefined;
  /** The Vertex key file's folder, and the clouds' settings for every data plane. */
  private cloudDir: string | undefined;
  private cloudEnv: Record<string, string> = {};
  private databaseName: string | undefined;
  /** The data planes' DRAW_JOURNAL_DIR: this stack's own, so that benches running at once never share one. */
  private journalDir: string | undefined;

  constructor(readonly options: StackOptions) {}

  /** The scratch PostgreSQL database of a "postgresql" stack (its backends' command lines name it). */
  get database(): string | undefined {
    return this.databaseName;
  }

  get mockUrl(): string {
    return this.mock.ready.url!;
  }

  /**
   * The mock keeps its last 10,000 requests with their bodies (10 GB of 1 MB prompts): with large prompts its
   * heap fills within a minute and it dies. This empties its log every 250 ms until the returned stop is called.
   */
  keepMockLogEmpty(): () => void {
    // A reset that fails (the mock gone) shows as the run's failed requests.
    const reset = () =>
      void fetch(`${this.mockUrl}/_mock/reset`, { method: "POST" })
        .then((response) => response.body?.cancel())
        .catch(() => {});
    reset();
    const timer = setInterval(reset, 250);
    return () => clearInterval(timer);
  }

  async start(): Promise<this> {
    const { options } = this;
    const databaseEnv: Record<string, string> = {};
    if (options.backend === "postgresql") {
      this.databaseName = `gateway_bench_${randomBytes(5).toString("hex")}`;
      await this.postgres((client) => client.query(`CREATE DATABASE ${this.databaseName}`));
      databaseEnv.DATABASE_URL = options.postgresUrl.replace(/\/[^/]*$/, `/${this.databaseName}`);
    } else {
      this.dataDir = mkdtempSync(path.join(os.tmpdir(), "gateway-bench-pglite-"));
      databaseEnv.GATEWAY_DATA_DIR = this.dataDir;
      databaseEnv.DATABASE_URL = "";
    }

    let dataPlaneBundle: string | undefined;
    if ((options.dataPlaneRuntime ?? "bundle") === "bundle") {
      this.bundleDir = mkdtempSync(path.join(os.tmpdir(), "gateway-bench-bundle-"));
      dataPlaneBundle = await bundleDataPlane(path.join(this.bundleDir, "data-plane.mjs"));
    }

    this.mock = await startService("mock-provider", { PORT: "0", MOCK_PROVIDER_API_KEY: UPSTREAM_KEY });
    this.controlPlane = await startService("control-plane", {
      ...databaseEnv,
      GATEWAY_INTERNAL_TOKEN: this.internalToken,
      GATEWAY_ADMIN_TOKEN: this.adminToken,
      CONTROL_PLANE_GRPC_PORT: "0",
      CONTROL_PLANE_ADMIN_PORT: "0",
      METRICS_PORT: "0",
      ...options.controlPlaneEnv,
    });
    this.cloudDir = mkdtempSync(path.join(os.tmpdir(), "gateway-bench-clouds-"));
    this.cloudEnv = await mockCloudEnv(this.mockUrl, this.cloudDir, UPSTREAM_KEY);
    this.dataPlaneRuntime = dataPlaneBundle ? { kind: "bundle", file: dataPlaneBundle } : { kind: "tsx" };
    this.journalDir = mkdtempSync(path.join(os.tmpdir(), "gateway-bench-journal-"));
    this.dataPlane = await this.startDataPlane(this.dataPlaneRuntime, "bench-data-plane");
    this.floor = await startFloor(this.mockUrl);

    for (const service of [this.mock, this.controlPlane, this.dataPlane]) this.logTails.set(service.name, drainLog(service));
    if (options.gatewayCpus !== undefined) {
      for (const pid of [this.controlPlane.child.pid!, this.dataPlane.child.pid!, this.floor.child.pid!]) pin(pid, options.gatewayCpus);
    }
    if (options.loadCpus !== undefined) pin(this.mock.child.pid!, options.loadCpus);

    await this.createProject();
    return this;
  }

  /** A data plane of this stack (another one shares its control plane, mock and Redis: an A/B run). */
  startDataPlane(runtime: ServiceRuntime, replicaId: string, label?: string, env: Record<string, string> = {}): Promise<ServiceProcess> {
    return startService(
      "data-plane",
      {
        GATEWAY_INTERNAL_TOKEN: this.internalToken,
        CONTROL_PLANE_ADDRESS: this.controlPlane.ready.grpc!,
        DATA_PLANE_PORT: "0",
        METRICS_PORT: "0",
        DATA_PLANE_REPLICA_ID: replicaId,
        DRAW_JOURNAL_DIR: this.journalDir,
        OPENAI_BASE_URL: `${this.mockUrl}/v1`,
        OPENAI_API_KEY: UPSTREAM_KEY,
        // The Messages case's Anthropic path.
        ANTHROPIC_BASE_URL: `${this.mockUrl}/v1`,
        ANTHROPIC_API_KEY: UPSTREAM_KEY,
        // The limit is checked on every request, but so high that it never refuses.
        DEFAULT_RPM_LIMIT: "1000000000",
        REDIS_URL: this.options.backend === "postgresql" ? this.options.redisUrl : "",
        ...this.cloudEnv,
        ...this.options.dataPlaneEnv,
        ...env,
      },
      { runtime, ...(label ? { label } : {}) },
    );
  }

  private async postgres<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
    const client = new pg.Client({ connectionString: this.options.postgresUrl });
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.end();
    }
  }

  async admin<T = Record<string, unknown>>(method: string, route: string, body?: unknown): Promise<T> {
    const response = await fetch(`${this.controlPlane.ready.admin}${route}`, {
      method,
      headers: { authorization: `Bearer ${this.adminToken}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await response.json()) as T;
    if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${JSON.stringify(json)}`);
    return json;
  }

  /** A project with a balance no run can exhaust and no daily cap, and its key. */
  private async createProject(): Promise<void> {
    await this.admin("POST", "/admin/projects", { id: this.projectId, name: "benchmark" });
    await this.admin("POST", `/admin/projects/${this.projectId}/topups`, { amount_usd: "1000000.00", idempotency_key: "bench-credit" });
    this.key = (await this.admin<{ key: string }>("POST", `/admin/projects/${this.projectId}/keys`, { name: "benchmark" })).key;
  }

  /** The default catalogue plus CLOUD_MODELS: Claude Sonnet 4 with its Bedrock path alone, Gemini 2.5 Flash with its Vertex path alone. */
  async loadCloudModels(): Promise<void> {
    type Model = { id: string; paths: { provider: string }[] };
    const file = path.join(repositoryRoot, "services/control-plane/src/catalogue/default-catalogue.json");
    const catalogue = JSON.parse(readFileSync(file, "utf8")) as { models: Model[] };
    const only = (id: string, from: string, provider: string): Model => {
      const model = catalogue.models.find((candidate) => candidate.id === from)!;
      return { ...model, id, paths: model.paths.filter((candidate) => candidate.provider === provider) };
    };
    catalogue.models.push(
      only(CLOUD_MODELS.bedrock, "anthropic/claude-sonnet-4", "bedrock"),
      only(CLOUD_MODELS.vertex, "google/gemini-2.5-flash", "vertex"),
    );
    await this.loadCatalogue(catalogue);
  }

  /** Loads a catalogue through the admin API and waits until the data plane serves it. */
  async loadCatalogue(file: unknown): Promise<void> {
    const { revision } = await this.admin<{ revision: string }>("PUT", "/admin/catalogue?source=bench", file);
    const deadline = Date.now() + 30_000;
    for (;;) {
      const health = (await (await fetch(`${this.dataPlane.ready.metrics}/health`)).json()) as { detail?: { catalogue_revision?: string } };
      if (health.detail?.catalogue_revision === revision) return;
      if (Date.now() > deadline) throw new Error(`the data plane did not receive catalogue revision ${revision}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** Sets (or with undefined clears) the mock's default script, e.g. { latencyMs: 50 }. */
  async mockDefaultScript(script: Record<string, unknown> | undefined): Promise<void> {
    const response = await fetch(`${this.mockUrl}/_mock/default-script`, {
      method: script ? "POST" : "DELETE",
      headers: script ? { "content-type": "application/json" } : {},
      body: script ? JSON.stringify(script) : undefined,
    });
    if (!response.ok) throw new Error(`mock default script: ${response.status} ${await response.text()}`);
  }

  async stop(): Promise<void> {
    await this.floor?.stop().catch(() => {});
    await this.dataPlane?.stop().catch(() => null);
    await this.controlPlane?.stop().catch(() => null);
    await this.mock?.stop().catch(() => null);
    if (this.databaseName)
      await this.postgres((client) => client.query(`DROP DATABASE IF EXISTS ${this.databaseName} WITH (FORCE)`)).catch(() => {});
    if (this.dataDir) rmSync(this.dataDir, { recursive: true, force: true });
    if (this.bundleDir) rmSync(this.bundleDir, { recursive: true, force: true });
    if (this.cloudDir) rmSync(this.cloudDir, { recursive: true, force: true });
    if (this.journalDir) rmSync(this.journalDir, { recursive: true, force: true });
  }
}

/** With a CPU-profile directory: the service writes a V8 CPU profile into <dir>/<service>/<pid>.cpuprofile when it exits (cpu-profiler.mjs). */
export function profileEnv(dir: string | undefined, service: string): Record<string, string> {
  if (!dir) return {};
  const preload = path.join(repositoryRoot, "deploy/bench/cpu-profiler.mjs");
  return {
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --import ${preload}`.trim(),
    BENCH_CPU_PROFILE_DIR: path.resolve(dir, service),
  };
}
