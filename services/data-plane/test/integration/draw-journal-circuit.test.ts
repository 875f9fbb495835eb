// The draw journal's circuit (docs/money.md, "Journal store down or slow"), against a Redis of its
// own: a hung Redis costs the appends in flight one timeout, after which appends are answered at once
// and only probes go to Redis, until one is answered in time; a Redis that dies opens it too, and the
// one that comes back on its address closes it. With its local file, the late appends and those made
// while the circuit is open are kept in the file (their answers leave); without, they answer false
// (their answers wait for their draws).
import { drawJournalKey } from "@gateway/proto";
import { Redis } from "ioredis";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { RedisDrawJournal } from "../../src/billing/draw-journal";
import { LocalDrawJournal } from "../../src/billing/local-draw-journal";
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

describe("the draw journal's circuit", () => {
  let redis: OwnRedis | undefined;
  let admin: Redis | undefined;
  let journal: RedisDrawJournal | undefined;
  let dir: string | undefined;

  afterEach(async () => {
    redis?.resume();
    await journal?.close();
    admin?.disconnect();
    await redis?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function start(local?: LocalDrawJournal): Promise<{ redis: OwnRedis; admin: Redis; journal: RedisDrawJournal }> {
    redis = await startOwnRedis();
    admin = new Redis(redis.url);
    journal = new RedisDrawJournal(redis.url, local);
    // Connected: an append is kept in Redis (not in the local file, which keeps one at once).
    for (let attempt = 0; !((await journal.append(draw("lease-1", `warm-${attempt}`))) && journal.stats.kept > 0); attempt++) {
      if (attempt > 100) throw new Error("the journal never kept an append");
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return { redis, admin, journal };
  }

  it("after the first late append of a hung Redis, answers every append at once without sending it, until a probe is answered", async () => {
    const { redis, admin, journal } = await start();
    expect(journal.mode).toBe("redis");
    const failedBefore = journal.stats.failed;
    const bypassedBefore = journal.stats.bypassed;
    redis.pause();
    // Appends in flight together: the first to run out its time opens the circuit, and none waits longer.
    const sentAt = performance.now();
    const first = await Promise.all(["late-0", "late-1", "late-2"].map((id) => journal.append(draw("lease-1", id))));
    const waited = performance.now() - sentAt;
    expect(first).toEqual([false, false, false]);
    expect(waited).toBeGreaterThanOrEqual(240);
    expect(journal.mode).toMatch(/^bypassed/);
    expect(journal.stats.failed - failedBefore).toBe(3);
    // Past the hung calls' command timeout (2 s), when the next call could go out: no append waits.
    const waitedOn: number[] = [];
    const until = performance.now() + 2_600;
    let bypassed = 0;
    for (let index = 0; performance.now() < until; index++) {
      const append = journal.append(draw("lease-1", `bypassed-${index}`));
      if (!(await answeredAtOnce(append))) waitedOn.push(index);
      expect(await append).toBe(false);
      bypassed++;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(waitedOn).toEqual([]);
    expect(journal.stats.bypassed - bypassedBefore).toBe(bypassed);
    expect(journal.circuit.probes).toBeGreaterThan(0);
    redis.resume();
    // The probe saw Redis answer: appends are sent and kept again.
    await expect.poll(() => journal.mode, { timeout: 10_000 }).toBe("redis");
    expect(await journal.append(draw("lease-1", "after"))).toBe(true);
    // Redis ran the late appends when it thawed (their draws are idempotent); the bypassed ones were never sent.
    const fields = Object.keys(await admin.hgetall(drawJournalKey("lease-1"))).filter((id) => !id.startsWith("warm-"));
    expect(fields.sort()).toEqual(["after", "late-0", "late-1", "late-2"]);
  });

  it("opens when Redis dies and closes once one answers again on its address", async () => {
    const first = await start();
    await first.redis.stop();
    await expect.poll(() => first.journal.mode, { timeout: 10_000 }).toMatch(/^bypassed/);
    expect(await first.journal.append(draw("lease-2", "while-down"))).toBe(false);
    redis = await startOwnRedis(first.redis.port); // the same address, nothing in it
    await expect.poll(() => first.journal.mode, { timeout: 15_000 }).toBe("redis");
    expect(await first.journal.append(draw("lease-2", "back"))).toBe(true);
    expect(await first.admin.hkeys(drawJournalKey("lease-2"))).toEqual(["back"]);
  });

  it("with its local file, keeps the late appends and those made while the circuit is open in the file, answered at once, for the next process on the directory", async () => {
    dir = mkdtempSync(path.join(tmpdir(), "journal-circuit-"));
    const { redis, journal } = await start(new LocalDrawJournal({ dir: path.join(dir, "replica") }));
    const before = { ...journal.stats };
    redis.pause();
    const first = await Promise.all(["late-0", "late-1"].map((id) => journal.append(draw("lease-3", id))));
    expect(first).toEqual([true, true]); // one timeout, then the file
    expect(journal.mode).toMatch(/^file \(Redis unreachable or late/);
    const waitedOn: number[] = [];
    for (let index = 0; index < 20; index++) {
      const append = journal.append(draw("lease-3", `open-${index}`));
      if (!(await answeredAtOnce(append))) waitedOn.push(index);
      expect(await append).toBe(true);
    }
    expect(waitedOn).toEqual([]);
    expect(journal.stats.keptLocally - before.keptLocally).toBe(22);
    expect(journal.stats.bypassed - before.bypassed).toBe(20);
    expect(journal.stats.failed).toBe(0);
    journal.landed("open-0"); // its draw reached the ledger: not drawn again
    // Killed here (nothing closed): the next process on the directory draws the rest.
    const next = new LocalDrawJournal({ dir: path.join(dir, "replica") });
    const ids = next.takeRecovered().map((entry) => entry.requestId);
    for (const id of ["late-0", "late-1", "open-1", "open-19"]) expect(ids).toContain(id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(next.takeRecovered()).toEqual([]);
    next.close();
    redis.resume();
    await expect.poll(() => journal.mode, { timeout: 10_000 }).toBe("redis");
    const keptLocally = journal.stats.keptLocally;
    expect(await journal.append(draw("lease-3", "back"))).toBe(true);
    expect(journal.stats.keptLocally).toBe(keptLocally); // back on Redis
  });
});
