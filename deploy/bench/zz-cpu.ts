import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { LocalDrawJournal } from "../../services/data-plane/src/billing/draw-journal";
const draw = (leaseId: string, index: number) => ({ requestId: `b-${index}-${randomUUID()}`, leaseId, projectId: "bench", amountNano: 123_456n, holdNano: 123_456n, model: "openai/gpt-4.1-mini", accessPath: "openai", inputTokens: 120, outputTokens: 48, costParts: [{ component: "input", units: 120, nano: 48_000n }, { component: "output", units: 48, nano: 76_800n }] });
const mode = process.argv[2] ?? "redis";
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "zz-"));
const journal = new LocalDrawJournal({ dir: path.join(dir, "x"), redisUrl: mode === "redis" ? "redis://127.0.0.1:6379" : undefined });
const lease = `lease:zz:${randomUUID()}`;
await new Promise((r) => setTimeout(r, 300));
const N = 20000;
const cpu0 = process.cpuUsage(); const t0 = performance.now();
let done = 0;
await new Promise<void>((resolve) => {
  // 64 "requests" at a time, each appending in its own macrotask, landing 50 ms later
  const one = (i: number) => setImmediate(() => {
    const d = draw(lease, i);
    journal.appendNow(d);
    setTimeout(() => journal.landed(d.requestId), 50);
    if (++done === N) resolve(); else if (i + 64 < N) one(i + 64);
  });
  for (let i = 0; i < 64; i++) one(i);
});
await new Promise((r) => setTimeout(r, 200));
const cpu = process.cpuUsage(cpu0);
console.log(mode, `${((cpu.user + cpu.system) / N).toFixed(1)} µs CPU/append, ${(N / ((performance.now() - t0) / 1000)).toFixed(0)}/s, replicated ${journal.stats.replicated}`);
await journal.close(); fs.rmSync(dir, { recursive: true, force: true });
