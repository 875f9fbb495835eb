// Starts one of the gateway's services as a real child process (node with the
// tsx loader, or the data plane's production bundle), waits for its ready line
// on stdout, and stops it. Used by the local launcher (start-local.ts), the
// integration tests and the benchmark.
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";

export const repositoryRoot = path.resolve(import.meta.dirname, "../..");

export const SERVICE_ENTRIES = {
  "control-plane": "services/control-plane/src/server.ts",
  "data-plane": "services/data-plane/src/server.ts",
  "mock-provider": "services/mock-provider/src/server.ts",
} as const;

export type ServiceName = keyof typeof SERVICE_ENTRIES;

/**
 * How production runs the data plane (deploy/docker/Dockerfile, and through it compose and
 * Kubernetes): the bundle of deploy/build/bundle-data-plane.ts (`pnpm build:data-plane`), by plain
 * node with these flags, not through tsx. The flags keep the heap near its live size: without
 * them V8 sizes the heap from the machine's memory and lets the old generation grow to about four
 * times the live data between full collections (docs/deploy.md, "Memory").
 */
export const DATA_PLANE_BUNDLE = "dist/data-plane.mjs";
export const DATA_PLANE_NODE_FLAGS = ["--max-old-space-size=256", "--max-semi-space-size=16"] as const;

/** tsx: the TypeScript sources through the loader; bundle: the data plane as production runs it (a built bundle file). */
export type ServiceRuntime = { kind: "tsx" } | { kind: "bundle"; file: string };

let testBundle: Promise<string> | undefined;

/**
 * The runtime a caller did not choose: tsx, or with GATEWAY_TEST_DATA_PLANE=bundle the data plane's
 * production bundle (the test stacks choose the bundle their global setup built: deploy/test/data-plane-bundle.ts).
 */
async function defaultRuntime(service: ServiceName): Promise<ServiceRuntime> {
  if (service !== "data-plane" || process.env.GATEWAY_TEST_DATA_PLANE !== "bundle") return { kind: "tsx" };
  return productionBundle();
}

/**
 * The data plane's production bundle, built once per process into a temporary directory. The build
 * script runs as its own process: it imports this file, not the reverse.
 */
export async function productionBundle(): Promise<ServiceRuntime> {
  testBundle ??= (async () => {
    const directory = mkdtempSync(path.join(os.tmpdir(), "gateway-data-plane-"));
    process.once("exit", () => rmSync(directory, { recursive: true, force: true }));
    const file = path.join(directory, "data-plane.mjs");
    await promisify(execFile)(process.execPath, ["--import", "tsx", "deploy/build/bundle-data-plane.ts", file], { cwd: repositoryRoot });
    return file;
  })();
  return { kind: "bundle", file: await testBundle };
}

function nodeArguments(service: ServiceName, runtime: ServiceRuntime): string[] {
  if (runtime.kind === "tsx") return ["--import", "tsx", SERVICE_ENTRIES[service]];
  if (service !== "data-plane") throw new Error(`only the data plane runs as a bundle, not ${service}`);
  return [...DATA_PLANE_NODE_FLAGS, runtime.file];
}

export interface ServiceProcess {
  name: string;
  child: ChildProcess;
  /** What the ready line said: parsed JSON, or { url } for the mock provider's line. */
  ready: Record<string, string>;
  /** Everything the process printed so far (stdout and stderr). */
  output(): string;
  /** Sends the signal and waits for the exit (SIGKILL after `graceMs`). */
  stop(signal?: NodeJS.Signals, graceMs?: number): Promise<number | null>;
}

function parseReadyLine(line: string): Record<string, string> | undefined {
  const mock = /^mock-provider listening on (\S+)$/.exec(line.trim());
  if (mock) return { url: mock[1]! };
  if (!line.startsWith("{")) return undefined;
  try {
    const parsed = JSON.parse(line) as Record<string, unknown>;
    return typeof parsed.msg === "string" && parsed.msg.endsWith(" ready")
      ? Object.fromEntries(Object.entries(parsed).map(([key, value]) => [key, String(value)]))
      : undefined;
  } catch {
    return undefined;
  }
}

export async function startService(
  service: ServiceName,
  env: Record<string, string | undefined>,
  options: { label?: string; timeoutMs?: number; echo?: boolean; runtime?: ServiceRuntime } = {},
): Promise<ServiceProcess> {
  const name = options.label ?? service;
  const child = spawn(process.execPath, nodeArguments(service, options.runtime ?? (await defaultRuntime(service))), {
    cwd: repositoryRoot,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  let exitCode: number | null | undefined;
  // 'close', not 'exit': the process's last output lines are read before the caller looks at them.
  const exited = new Promise<number | null>((resolve) =>
    child.once("close", (code) => {
      exitCode = code;
      resolve(code);
    }),
  );

  return new Promise((resolve, reject) => {
    let pending = "";
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${name} did not become ready in ${options.timeoutMs ?? 60_000} ms:\n${output}`));
    }, options.timeoutMs ?? 60_000);
    const onData = (chunk: Buffer) => {
      const text = chunk.toString();
      output += text;
      if (options.echo)
        process.stdout.write(
          text
            .split("\n")
            .map((line) => (line ? `[${name}] ${line}` : line))
            .join("\n"),
        );
      pending += text;
      const lines = pending.split("\n");
      pending = lines.pop() ?? "";
      for (const line of lines) {
        const ready = parseReadyLine(line);
        if (!ready) continue;
        clearTimeout(timer);
        resolve({
          name,
          child,
          ready,
          output: () => output,
          stop: async (signal = "SIGTERM", graceMs = 10_000) => {
            if (exitCode !== undefined) return exitCode;
            child.kill(signal);
            const killer = setTimeout(() => child.kill("SIGKILL"), graceMs);
            const code = await exited;
            clearTimeout(killer);
            return code;
          },
        });
      }
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      if (options.echo) process.stderr.write(chunk);
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with code ${code} before it was ready:\n${output}`));
    });
  });
}
