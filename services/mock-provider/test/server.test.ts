// The entry point as a real process: one stdout line to parse, its env options, clean exit on SIGTERM.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SERVER = fileURLToPath(new URL("../src/server.ts", import.meta.url));
const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url));

describe("src/server.ts", () => {
  it("prints its address once, serves, and exits 0 on SIGTERM", async () => {
    const child = spawn(process.execPath, ["--import", "tsx", SERVER], {
      cwd: REPO_ROOT,
      env: { ...process.env, PORT: "0", HOST: "127.0.0.1", MOCK_PROVIDER_API_KEY: "sk-proc", MOCK_PROVIDER_PROMPT_CACHE: "on" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    try {
      let stdout = "";
      child.stdout.setEncoding("utf8");
      const line = await new Promise<string>((resolve, reject) => {
        child.stdout.on("data", (chunk: string) => {
          stdout += chunk;
          const end = stdout.indexOf("\n");
          if (end !== -1) resolve(stdout.slice(0, end));
        });
        child.once("exit", (code) => reject(new Error(`server exited early with ${code}`)));
      });
      const match = /^mock-provider listening on (http:\/\/127\.0\.0\.1:(\d+))$/.exec(line);
      expect(match).not.toBeNull();
      const url = match![1]!;
      expect(Number(match![2])).toBeGreaterThan(0);

      expect(await (await fetch(`${url}/_mock/health`)).json()).toEqual({ status: "ok" });
      const denied = await fetch(`${url}/v1/models`, { headers: { authorization: "Bearer wrong" } });
      expect(denied.status).toBe(401);
      const allowed = await fetch(`${url}/v1/models`, { headers: { authorization: "Bearer sk-proc" } });
      expect(allowed.status).toBe(200);
      expect(((await (await fetch(`${url}/_mock/prompt-cache`)).json()) as { enabled: boolean }).enabled).toBe(true);

      child.kill("SIGTERM");
      const [code] = await once(child, "exit");
      expect(code).toBe(0);
      expect(stdout).toBe(`${line}\n`);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
    }
  });
});
