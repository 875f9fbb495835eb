// `pnpm start` twice on one machine (issue 33, item 14): with every port moved by its variable and each
// in its own GATEWAY_LOCAL_DIR, the two gateways run side by side, each plane's metrics on its own
// port. METRICS_PORT, set in the shell for both, is not handed to the planes (it would give them one
// port, and the second plane would fail to listen). The first runs on PGlite, the second on a
// PostgreSQL database of its own (DATABASE_URL).
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { type ScratchDatabase, scratchDatabase } from "../../services/control-plane/test/harness/scratch-database";
import { freePort } from "../../services/data-plane/test/harness/redis-server";
import { repositoryRoot } from "../local/service-process";
import { LOCAL_PORT_VARIABLES } from "../local/local-settings";

interface LocalGateway {
  process: ChildProcess;
  directory: string;
  ports: Record<string, number>;
  output: () => string;
  /** What the launcher printed once everything was up. */
  printed: { dataPlane: string; admin: string; metrics: string[]; key: string };
}

const running: LocalGateway[] = [];

/** Runs `pnpm start`'s script with the given ports and its own directory; resolves once it printed its key. */
async function startLocal(ports: Record<string, number>, extra: Record<string, string>): Promise<LocalGateway> {
  const directory = mkdtempSync(path.join(os.tmpdir(), "gateway-local-"));
  // The console built in its own folder too: the browser tests' builds are never emptied under them.
  const env: NodeJS.ProcessEnv = { ...process.env, GATEWAY_LOCAL_DIR: directory, GATEWAY_CONSOLE_DIR: path.join(directory, "console") };
  // No Redis, the mock provider as every upstream; PGlite unless `extra` names a database.
  for (const name of ["DATABASE_URL", "REDIS_URL", "OPENAI_API_KEY", "GATEWAY_DATA_DIR"]) delete env[name];
  Object.assign(env, extra);
  for (const [name, port] of Object.entries(ports)) env[name] = String(port);
  const child = spawn(process.execPath, ["--import", "tsx", "deploy/local/start-local.ts"], {
    cwd: repositoryRoot,
    env,
    stdio: ["ignore", "pipe", "pipe"],
    detached: true, // its own process group: afterAll can stop whatever it started if it did not stop itself
  });
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const gateway: LocalGateway = { process: child, directory, ports, output: () => output, printed: undefined! };
  running.push(gateway);
  await new Promise<void>((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`pnpm start exited with ${code}:\n${output}`));
    child.once("exit", onExit);
    const poll = setInterval(() => {
      if (!output.includes("Ctrl-C stops everything.")) return;
      clearInterval(poll);
      child.off("exit", onExit);
      resolve();
    }, 100);
    child.once("exit", () => clearInterval(poll));
  });
  const line = (label: string) => new RegExp(`^\\s+${label}\\s+(.+)$`, "m").exec(output)?.[1] ?? "";
  gateway.printed = {
    dataPlane: line("data plane").split(/\s+/)[0]!,
    admin: line("admin API").split(/\s+/)[0]!,
    metrics: [...line("metrics").matchAll(/(http:\/\/\S+)\/metrics/g)].map((match) => match[1]!),
    key: line("API key").trim(),
  };
  return gateway;
}

async function stopLocal(gateway: LocalGateway): Promise<void> {
  if (gateway.process.exitCode === null && gateway.process.signalCode === null) {
    const exited = new Promise((resolve) => gateway.process.once("exit", resolve));
    gateway.process.kill("SIGTERM");
    const killer = setTimeout(() => process.kill(-gateway.process.pid!, "SIGKILL"), 20_000);
    await exited;
    clearTimeout(killer);
  }
  rmSync(gateway.directory, { recursive: true, force: true });
}

/** A fresh free port for each of `pnpm start`'s port variables. */
async function movedPorts(): Promise<Record<string, number>> {
  const ports: Record<string, number> = {};
  for (const name of LOCAL_PORT_VARIABLES) ports[name] = await freePort();
  return ports;
}

describe("pnpm start, twice on one machine", () => {
  let database: ScratchDatabase | undefined;

  afterAll(async () => {
    for (const gateway of running) await stopLocal(gateway);
    await database?.drop();
  });

  it("runs two gateways side by side with every port moved, METRICS_PORT set for both", { timeout: 600_000 }, async () => {
    const shared = { METRICS_PORT: String(await freePort()) };
    // One after the other, as a person would: the second starts while the first runs.
    const first = await startLocal(await movedPorts(), shared);
    database = await scratchDatabase("start_local_second");
    const second = await startLocal(await movedPorts(), { ...shared, DATABASE_URL: database.url });

    for (const gateway of [first, second]) {
      const { ports, printed } = gateway;
      expect(new URL(printed.dataPlane).port).toBe(String(ports.DATA_PLANE_PORT));
      expect(new URL(printed.admin).port).toBe(String(ports.CONTROL_PLANE_ADMIN_PORT));
      // Each plane's metrics on its own variable's port: the data plane's, then the control plane's.
      expect(printed.metrics.map((url) => new URL(url).port)).toEqual([
        String(ports.DATA_PLANE_METRICS_PORT),
        String(ports.CONTROL_PLANE_METRICS_PORT),
      ]);
      const [dataPlaneMetrics, controlPlaneMetrics] = await Promise.all(
        printed.metrics.map(async (url) => (await fetch(`${url}/metrics`)).text()),
      );
      expect(dataPlaneMetrics).toContain("gateway_draws_under_way");
      expect(controlPlaneMetrics).toContain("gateway_money_batches_total");
      // The shell's METRICS_PORT went to neither plane, and the launcher says why.
      expect(gateway.output()).toContain("METRICS_PORT is not passed to the planes");

      // Each gateway answers with its own key, through its own mock provider, and wrote its own state.
      const answer = await fetch(`${printed.dataPlane}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${printed.key}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "auto", messages: [{ role: "user", content: "Hello" }] }),
      });
      expect(answer.status).toBe(200);
      // The catalogue's cloud paths answer too, with no cloud account: Claude through Bedrock, signed for the mock.
      const bedrock = await fetch(`${printed.dataPlane}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${printed.key}`, "content-type": "application/json" },
        body: JSON.stringify({
          model: "anthropic/claude-sonnet-4",
          messages: [{ role: "user", content: "Hello" }],
          service: { paths: ["bedrock"] },
        }),
      });
      expect(bedrock.status).toBe(200);
      expect(bedrock.headers.get("x-service-reason")).toMatch(/via bedrock/);
      // Its mock caches prompts as the providers do: a conversation's second turn reads the first's prefix.
      const system = { role: "system", content: "Follow the house rules and explain every change. ".repeat(200) };
      const cachedTokens = async (messages: unknown[]) => {
        const turn = await fetch(`${printed.dataPlane}/v1/chat/completions`, {
          method: "POST",
          headers: { authorization: `Bearer ${printed.key}`, "content-type": "application/json" },
          body: JSON.stringify({ model: "openai/gpt-4.1-mini", messages }),
        });
        return ((await turn.json()) as { usage: { prompt_tokens_details?: { cached_tokens?: number } } }).usage.prompt_tokens_details
          ?.cached_tokens;
      };
      const opening = { role: "user", content: "Where do we start?" };
      expect(await cachedTokens([system, opening])).toBe(0);
      expect(
        await cachedTokens([system, opening, { role: "assistant", content: "Here." }, { role: "user", content: "Go on." }]),
      ).toBeGreaterThan(0);
      const state = JSON.parse(readFileSync(path.join(gateway.directory, "local-gateway.json"), "utf8")) as Record<string, string>;
      expect(state.adminUrl).toBe(printed.admin);
      // Its console, built into its own GATEWAY_CONSOLE_DIR and served from there.
      const consolePage = await fetch(`${printed.admin}/console/`);
      expect(consolePage.status).toBe(200);
      expect(await consolePage.text()).toBe(readFileSync(path.join(gateway.directory, "console", "index.html"), "utf8"));
    }
    // The first is still up once the second runs.
    expect((await fetch(`${first.printed.admin}/health`)).status).toBe(200);

    // gatewayctl finds the second through its folder: the key it issues is the second's, unknown to the first.
    const env: NodeJS.ProcessEnv = { ...process.env, GATEWAY_LOCAL_DIR: second.directory };
    delete env.GATEWAY_ADMIN_URL;
    delete env.GATEWAY_ADMIN_TOKEN;
    const issued = await promisify(execFile)(
      process.execPath,
      ["--import", "tsx", "services/control-plane/src/cli/gatewayctl.ts", "keys", "issue", "--project", "local", "--json"],
      { cwd: repositoryRoot, env },
    );
    const { key } = JSON.parse(issued.stdout) as { key: string };
    const models = (gateway: LocalGateway) =>
      fetch(`${gateway.printed.dataPlane}/v1/models`, { headers: { authorization: `Bearer ${key}` } }).then((answer) => answer.status);
    expect(await models(second)).toBe(200);
    expect(await models(first)).toBe(401);
  });
});
