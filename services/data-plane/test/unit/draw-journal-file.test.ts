// The draw journal's local file (docs/money.md, "Journal store down or slow"): bounded by what has not
// landed, read back whole by the next process on the directory (a line cut short left out), and
// never shared by two live processes.
import { spawn } from "node:child_process";
import { appendFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LocalDrawJournal } from "../../src/billing/local-draw-journal";
import type { SegmentLimits } from "../../src/billing/journal-segments";
import type { DrawCall } from "../../src/control-plane/control-plane-client";

const draw = (requestId: string, leaseId = "lease-1"): DrawCall => ({
  requestId,
  leaseId,
  projectId: "p",
  amountNano: 123_456n,
  holdNano: 123_456n,
  model: "openai/gpt-4.1-mini",
  accessPath: "openai",
  inputTokens: 120,
  outputTokens: 48,
  costParts: [
    { component: "input", units: 120, nano: 48_000n },
    { component: "output", units: 48, nano: 75_456n },
  ],
  keyId: "key-1",
});

const SMALL: SegmentLimits = { segmentBytes: 4096, segmentMs: 50, maxBytes: 64 * 1024 };

describe("the draw journal's local file", () => {
  let root: string;
  const journals: LocalDrawJournal[] = [];
  const open = (limits = SMALL) => {
    const journal = new LocalDrawJournal({ dir: path.join(root, "replica"), limits });
    journals.push(journal);
    return journal;
  };
  const files = () => readdirSync(path.join(root, "replica")).filter((name) => name.startsWith("segment-"));

  beforeEach(() => {
    root = mkdtempSync(path.join(tmpdir(), "journal-file-"));
  });
  afterEach(async () => {
    for (const journal of journals.splice(0)) journal.close();
    rmSync(root, { recursive: true, force: true });
  });

  it("holds only the segments of draws not landed: bounded under a steady stream, empty once all landed", async () => {
    const journal = open();
    let largest = 0;
    const lag = 20; // each draw lands 20 appends after its own, as draws land a batch behind the answers
    for (let index = 0; index < 5_000; index++) {
      expect(journal.appendNow(draw(`r-${index}`))).toBe(true);
      if (index >= lag) journal.landed(`r-${index - lag}`);
      largest = Math.max(largest, journal.disk.bytes);
    }
    // ~5,000 entries of ~400 bytes went through (2 MB): never more than the 20 not landed and their segments.
    expect(journal.stats.kept).toBe(5_000);
    expect(largest).toBeLessThanOrEqual(3 * SMALL.segmentBytes);
    expect(files().length).toBeLessThanOrEqual(3);
    for (let index = 5_000 - lag; index < 5_000; index++) journal.landed(`r-${index}`);
    // The segment still being written goes once it is older than segmentMs.
    await expect.poll(() => journal.disk, { timeout: 5_000 }).toEqual({ bytes: 0, segments: 0 });
    expect(files()).toEqual([]);
  });

  it("refuses an append beyond its bound (the answer then waits for its draw) and takes them again once draws land", () => {
    const journal = open();
    let index = 0;
    while (journal.appendNow(draw(`r-${index}`))) index++;
    expect(journal.stats.failed).toBe(1);
    expect(journal.disk.bytes).toBeLessThanOrEqual(SMALL.maxBytes);
    expect(journal.mode).toMatch(/^failing/);
    for (let landed = 0; landed < index; landed++) journal.landed(`r-${landed}`);
    expect(journal.appendNow(draw("after"))).toBe(true);
    expect(journal.mode).toBe("file");
  });

  it("a process started on the directory gets back every draw not landed, once each, the same as written; a line cut short is left out", async () => {
    const first = open();
    for (let index = 0; index < 100; index++) first.appendNow(draw(`r-${index}`, `lease-${index % 3}`));
    for (let index = 0; index < 50; index++) first.landed(`r-${index}`);
    // Killed: nothing closed. A write that never completed left half a line at the end of a segment.
    const last = files().sort().at(-1)!;
    appendFileSync(path.join(root, "replica", last), '{"requestId":"cut-short","leaseId":"lea');
    journals.splice(0);
    const second = open(); // the owner file names this very process: a predecessor, not a live owner
    const recovered = second.takeRecovered();
    const ids = recovered.map((entry) => entry.requestId);
    expect(new Set(ids).size).toBe(ids.length);
    // Those not landed all come back; landed ones still in a kept segment come back too (their draws are replays).
    for (let index = 50; index < 100; index++) expect(ids).toContain(`r-${index}`);
    expect(ids).not.toContain("cut-short");
    expect(second.stats.recovered).toBe(recovered.length);
    expect(recovered.find((entry) => entry.requestId === "r-70")).toEqual(draw("r-70", "lease-1"));
    expect(second.takeRecovered()).toEqual([]); // handed out once
    // Once they have landed, the predecessor's segments go.
    for (const id of ids) second.landed(id);
    expect(files()).toEqual([]);
  });

  it("refuses a directory a live process of this host owns", async () => {
    const other = spawn("sleep", ["30"], { stdio: "ignore" });
    try {
      mkdirSync(path.join(root, "replica"));
      writeFileSync(path.join(root, "replica", "owner"), `${other.pid} ${hostname()}\n`);
      expect(() => open()).toThrow(/belongs to process \d+, still running/);
    } finally {
      other.kill("SIGKILL");
    }
    await new Promise((resolve) => other.once("exit", resolve));
    writeFileSync(path.join(root, "replica", "owner"), `${other.pid} ${hostname()}\n`);
    expect(() => open()).not.toThrow(); // its owner died: taken over
  });
});
