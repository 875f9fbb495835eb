// The draw journal's copy to Redis and its circuit (docs/money.md, "Redis down or slow"), against a
// Redis of its own: appends are kept in the local file at once whatever Redis does; a hung Redis costs
// the batches in flight one timeout, after which only probes go to Redis, until one is answered in time;
// a Redis that dies opens the circuit too, and the one that comes back on its address closes it. What
// was appended while Redis was away reaches it once it answers.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { drawJournalKey } from "@gateway/proto";
import { Redis } from "ioredis";
import { afterEach, describe, expect, it } from "vitest";
import { LocalDrawJournal } from "../../src/billing/draw-journal";
import { MAX_IN_FLIGHT } from "../../src/billing/journal-replicator";
import type { DrawCall } from "../../src/control-plane/control-plane-client";
import { type OwnRedis, startOwnRedis } from "../harness/redis-server";

const draw = (leaseId: string, requestId: string): DrawCall => ({
  requestId,
  leaseId,
  projectId: "p",
  amountNano: 40n,
  holdNano: 40n,
  model: "m",
  accessPath: "openai",
  inputTokens: 1,
  outputTokens: 1,
});

/** Whether the append is answered before the event loop turns once more: it waited on nothing (no timer, no socket). */
async function answeredAtOnce(append: Promise<boolean>): Promise<boolean> {
  const turned = new Promise<"turned">((resolve) => setImmediate(() => resolve("turned")));
  return (await Promise.race([append.then(() => "answered" as const), turned])) === "answered";
}

describe("the draw journal's copy to Redis", () => {
  let redis: OwnRedis | undefined;
  let admin: Redis | undefined;
  let journal: LocalDrawJournal | undefined;
  let dir: string | undefined;

  afterEach(async () => {
    redis?.resume();
    await journal?.close();
    admin?.disconnect();
    await redis?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function start(): Promise<{ redis: OwnRedis; admin: Redis; journal: LocalDrawJournal }> {
    redis = await startOwnRedis();
    admin = new Redis(redis.url);
    dir = mkdtempSync(path.join(tmpdir(), "journal-circuit-"));
    journal = new LocalDrawJournal({ dir: path.join(dir, "replica"), redisUrl: redis.url });
    // Connected: an append reaches Redis.
    expect(await journal.append(draw("lease-1", "warm"))).toBe(true);
    await expect.poll(() => admin!.hexists(drawJournalKey("lease-1"), "warm"), { timeout: 10_000 }).toBe(1);
    return { redis, admin, journal };
  }

  it("a hung Redis costs no append anything: the late batches in flight open the circuit, then only probes, and every entry reaches Redis after the thaw", async () => {
    const { redis, admin, journal } = await start();
    expect(journal.mode).toBe("file+redis");
    const failedBefore = journal.replicator!.stats.failedBatches;
    redis.pause();
    // Past the first batch's 250 ms and the hung calls' command timeout (2 s): no append waits, each is kept.
    const waitedOn: number[] = [];
    const until = performance.now() + 2_600;
    const appended: string[] = [];
    for (let index = 0; performance.now() < until; index++) {
      const requestId = `paused-${index}`;
      const append = journal.append(draw("lease-1", requestId));
      if (!(await answeredAtOnce(append))) waitedOn.push(index);
      expect(await append).toBe(true);
      appended.push(requestId);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(waitedOn).toEqual([]);
    expect(journal.mode).toMatch(/^file \(Redis unreachable or late/);
    expect(journal.circuit.open).toBe(true);
    // The batches in flight when it hung (at most MAX_IN_FLIGHT at once), then none: 2.6 s of appends were not sent.
    expect(journal.replicator!.stats.failedBatches - failedBefore).toBeGreaterThanOrEqual(1);
    expect(journal.replicator!.stats.failedBatches - failedBefore).toBeLessThanOrEqual(MAX_IN_FLIGHT);
    expect(journal.replicator!.circuit.probes).toBeGreaterThan(0);
    expect(journal.backlog).toBe(appended.length);
    redis.resume();
    // The probe saw Redis answer: the queue goes, and appends are copied again.
    await expect.poll(() => journal.mode, { timeout: 10_000 }).toBe("file+redis");
    expect(await journal.append(draw("lease-1", "after"))).toBe(true);
    await expect.poll(() => journal.backlog, { timeout: 10_000 }).toBe(0);
    const fields = await admin.hkeys(drawJournalKey("lease-1"));
    expect(fields.sort()).toEqual(["after", "warm", ...appended].sort());
    expect(await admin.pttl(drawJournalKey("lease-1"))).toBeGreaterThan(0); // it expires if nobody deletes it
  });

  it("an entry whose draw landed before Redis came back is not copied: the ledger has it", async () => {
    const { redis, admin, journal } = await start();
    redis.pause();
    expect(await journal.append(draw("lease-3", "late"))).toBe(true); // its batch hangs, then opens the circuit
    await expect.poll(() => journal.circuit.open, { timeout: 10_000 }).toBe(true);
    expect(await journal.append(draw("lease-3", "landed-first"))).toBe(true);
    expect(await journal.append(draw("lease-3", "not-landed"))).toBe(true);
    journal.landed("landed-first");
    redis.resume();
    await expect.poll(() => journal.backlog, { timeout: 10_000 }).toBe(0);
    // The late batch ran when Redis thawed (a replay to the reconciler); the landed entry never went.
    expect((await admin.hkeys(drawJournalKey("lease-3"))).sort()).toEqual(["late", "not-landed"]);
  });

  it("opens when Redis dies and closes once one answers again on its address; what was appended meanwhile reaches it", async () => {
    const first = await start();
    await first.redis.stop();
    expect(await first.journal.append(draw("lease-2", "while-down"))).toBe(true); // kept locally all the same
    await expect.poll(() => first.journal.circuit.open, { timeout: 10_000 }).toBe(true);
    redis = await startOwnRedis(first.redis.port); // the same address, nothing in it
    await expect.poll(() => first.journal.mode, { timeout: 15_000 }).toBe("file+redis");
    expect(await first.journal.append(draw("lease-2", "back"))).toBe(true);
    await expect
      .poll(async () => (await first.admin.hkeys(drawJournalKey("lease-2"))).sort(), { timeout: 10_000 })
      .toEqual(["back", "while-down"]);
  });
});
