// Starts one of the gateway's services as a real child process (node with the
// tsx loader), waits for its ready line on stdout, and stops it. Used by the
// local launcher (start-local.ts) and by the integration tests.
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";

export const repositoryRoot = path.resolve(import.meta.dirname, "../..");

export const SERVICE_ENTRIES = {
  "control-plane": "services/control-plane/src/server.ts",
  "data-plane": "services/data-plane/src/server.ts",
  "mock-provider": "services/mock-provider/src/server.ts",
} as const;

export type ServiceName = keyof typeof SERVICE_ENTRIES;

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
    return typeof parsed.msg === "string" && parsed.msg.endsWith(" ready") ? Object.fromEntries(Object.entries(parsed).map(([key, value]) => [key, String(value)])) : undefined;
  } catch {
    return undefined;
  }
}

export function startService(
  service: ServiceName,
  env: Record<string, string | undefined>,
  options: { label?: string; timeoutMs?: number; echo?: boolean } = {},
): Promise<ServiceProcess> {
  const name = options.label ?? service;
  const child = spawn(process.execPath, ["--import", "tsx", SERVICE_ENTRIES[service]], {
    cwd: repositoryRoot,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  let exitCode: number | null | undefined;
  // 'close', not 'exit': the process's last output lines are read before the caller looks at them.
  const exited = new Promise<number | null>((resolve) => child.once("close", (code) => resolve((exitCode = code))));

  return new Promise((resolve, reject) => {
    let pending = "";
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${name} did not become ready in ${options.timeoutMs ?? 60_000} ms:\n${output}`));
    }, options.timeoutMs ?? 60_000);
    const onData = (chunk: Buffer) => {
      const text = chunk.toString();
      output += text;
      if (options.echo) process.stdout.write(text.split("\n").map((line) => (line ? `[${name}] ${line}` : line)).join("\n"));
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
