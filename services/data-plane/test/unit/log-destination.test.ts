// The data plane's log lines are written in batches; the ones still gathered
// when the process exits (process.exit after a drain, an uncaught error) are
// written on the way out.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const FIXTURE = fileURLToPath(new URL("../support/log-exit-fixture.ts", import.meta.url));

function run(mode: string): Promise<{ code: number | null; lines: { line: number; msg: string }[] }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", FIXTURE, mode], { stdio: ["ignore", "pipe", "ignore"] });
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.once("error", reject);
    child.once("close", (code) =>
      resolve({
        code,
        lines: stdout
          .split("\n")
          .filter(Boolean)
          .map((line) => JSON.parse(line) as { line: number; msg: string }),
      }),
    );
  });
}

describe("log destination", () => {
  it("writes the gathered lines when the process exits", async () => {
    const { code, lines } = await run("exit");
    expect(code).toBe(0);
    expect(lines.map((line) => [line.line, line.msg])).toEqual([
      [0, "before exit"],
      [1, "before exit"],
      [2, "before exit"],
    ]);
  });

  it("writes them when an uncaught error ends the process", async () => {
    const { code, lines } = await run("throw");
    expect(code).toBe(1);
    expect(lines.map((line) => line.line)).toEqual([0, 1, 2]);
  });
});
