// Pins shared through the machine's Redis (routing/affinity-pins.ts): one Redis round trip per
// conversation and data plane, on its first turn there; a data plane that kept a pin another has moved
// learns the new one from its own write; a gone Redis answers nothing and costs no wait.
import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_REDIS_URL } from "../../../../deploy/test/test-services";
import { type Pin, RedisPins } from "../../src/routing/affinity-pins";

const ALPHA: Pin = { model: "acme/alpha", provider: "openai", upstreamModel: "alpha-1" };
const BETA: Pin = { model: "acme/beta", provider: "openai", upstreamModel: "beta-1" };

/** A data plane's pins, once its connection to Redis is up. */
async function connected(pins: RedisPins): Promise<RedisPins> {
  const deadline = Date.now() + 5_000;
  while (pins.mode !== "redis") {
    if (Date.now() > deadline) throw new Error(`no Redis: ${pins.mode}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return pins;
}

describe("RedisPins", () => {
  const planes = [new RedisPins(TEST_REDIS_URL), new RedisPins(TEST_REDIS_URL)];
  beforeAll(() => Promise.all(planes.map(connected)));
  afterAll(() => Promise.all(planes.map((plane) => plane.close())));
  const [one, two] = planes as [RedisPins, RedisPins];
  /** Until a write sent without waiting has reached Redis. */
  const settled = () => new Promise((resolve) => setTimeout(resolve, 50));

  it("a pin set on one data plane is found by another with one lookup, then from its own copy", async () => {
    const conversation = randomUUID();
    one.put(conversation, ALPHA, 60_000, false);
    await settled();
    const before = two.stats.lookups;
    expect(await two.get(conversation)).toEqual(ALPHA);
    expect(two.get(conversation)).toEqual(ALPHA); // no promise: this data plane's copy
    expect(two.stats.lookups).toBe(before + 1);
  });

  it("a kept pin is written again once per refresh interval, and that write learns a move another data plane made", async () => {
    const conversation = randomUUID();
    one.put(conversation, ALPHA, 60_000, false);
    await settled();
    expect(await two.get(conversation)).toEqual(ALPHA);
    two.put(conversation, BETA, 60_000, false); // moved on data plane two
    await settled();
    one.put(conversation, ALPHA, 60_000, true); // data plane one's turn kept its (stale) pin: written lately, not again
    await settled();
    expect(one.get(conversation)).toEqual(ALPHA);
    const refreshing = await connected(new RedisPins(TEST_REDIS_URL, 0)); // a data plane whose every kept turn writes
    try {
      refreshing.put(conversation, ALPHA, 60_000, false);
      await settled();
      two.put(conversation, BETA, 60_000, false);
      await settled();
      refreshing.put(conversation, ALPHA, 60_000, true);
      await settled();
      expect(refreshing.get(conversation)).toEqual(BETA);
    } finally {
      await refreshing.close();
    }
    const fresh = await connected(new RedisPins(TEST_REDIS_URL));
    try {
      expect(await fresh.get(conversation)).toEqual(BETA);
    } finally {
      await fresh.close();
    }
  });

  it("a pin's lifetime in Redis is the turn's", async () => {
    const conversation = randomUUID();
    one.put(conversation, ALPHA, 300, false);
    await settled();
    const fresh = await connected(new RedisPins(TEST_REDIS_URL));
    const later = await connected(new RedisPins(TEST_REDIS_URL));
    try {
      expect(await fresh.get(conversation)).toEqual(ALPHA);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await later.get(conversation)).toBeUndefined();
      expect(await fresh.get(conversation)).toBeUndefined(); // its copy expired with the pin
    } finally {
      await Promise.all([fresh.close(), later.close()]);
    }
  });

  it("a pin's key group travels as a fourth line; a pin written before groups (three lines) is read without one", async () => {
    const grouped = randomUUID();
    one.put(grouped, { ...ALPHA, group: "acct-a" }, 60_000, false);
    const old = randomUUID();
    const raw = new Redis(TEST_REDIS_URL);
    try {
      await raw.set(`gateway:pin:${old}`, "acme/beta\nopenai\nbeta-1", "PX", 60_000);
      await settled();
      expect(await two.get(grouped)).toEqual({ ...ALPHA, group: "acct-a" });
      expect(await raw.get(`gateway:pin:${grouped}`)).toBe("acme/alpha\nopenai\nalpha-1\nacct-a");
      expect(await two.get(old)).toStrictEqual(BETA);
    } finally {
      raw.disconnect();
    }
  });

  it("with Redis gone, a lookup answers nothing at once and later ones do not ask", async () => {
    const gone = new RedisPins("redis://127.0.0.1:1");
    try {
      const started = performance.now();
      expect(await gone.get(randomUUID())).toBeUndefined();
      expect(gone.get(randomUUID())).toBeUndefined(); // the circuit is open: no promise, no wait
      expect(performance.now() - started).toBeLessThan(1_000);
      expect(gone.mode).toMatch(/^local/);
    } finally {
      await gone.close();
    }
  });
});
