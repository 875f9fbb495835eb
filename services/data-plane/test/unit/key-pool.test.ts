// A pool of provider keys on its own clock (docs/providers.md, "Pools of keys"): calls spread by
// weight over the usable keys; per-minute limits, a 429's rest and a refusal take a key out for a
// while; a conversation's group is preferred; a pool never stops a call; keys show by fingerprint only.
import { describe, expect, it } from "vitest";
import { KeyPool, type KeyPoolOptions, type KeyUse } from "../../src/providers/key-pool/key-pool";
import { parseKeyPools } from "../../src/providers/key-pool/key-pool-settings";

function pool(value: string, options: Partial<KeyPoolOptions> = {}) {
  const clock = { now: 1_800_000_000_000 };
  const counted: string[] = [];
  const refusals: Record<string, unknown>[] = [];
  const settings = parseKeyPools(value.includes(",") ? { OPENAI_API_KEYS: value } : { OPENAI_API_KEY: value }).get("OPENAI_API_KEY")!;
  const keys = new KeyPool(settings, {
    now: () => clock.now,
    cooldownMs: 10_000,
    refusalMs: 600_000,
    replicas: () => 1,
    counted: (name, key, outcome) => counted.push(`${name} ${key} ${outcome}`),
    refusedLog: (fields) => refusals.push(fields),
    ...options,
  });
  /** The keys `count` calls take (each answered at once), in order. */
  const picks = (count: number, tokens = 10, group?: string) =>
    Array.from({ length: count }, () => {
      const use = keys.take(tokens, group);
      use.answeredWith(200);
      return use.apiKey;
    });
  const tally = (taken: string[]) =>
    Object.fromEntries([...new Set(taken)].sort().map((key) => [key, taken.filter((k) => k === key).length]));
  return { keys, clock, counted, refusals, picks, tally };
}

describe("KeyPool", () => {
  it("spreads calls by weight, smoothly: every run of one round gives each key its weight", () => {
    const { picks, tally } = pool("a;weight=3,b;weight=2,c");
    const taken = picks(60);
    expect(tally(taken)).toEqual({ a: 30, b: 20, c: 10 });
    for (let round = 0; round < 10; round++) expect(tally(taken.slice(round * 6, round * 6 + 6))).toEqual({ a: 3, b: 2, c: 1 });
    expect(taken.slice(0, 6)).toEqual(["a", "b", "a", "c", "b", "a"]); // never all of a first
  });

  it("keeps a key within its requests per minute on this data plane, its share of the replicas", () => {
    const { picks, tally, clock } = pool("a;rpm=4,b");
    expect(tally(picks(10))).toEqual({ a: 4, b: 6 });
    clock.now += 60_000; // the minute has passed
    expect(tally(picks(2))).toEqual({ a: 1, b: 1 });
    const shared = pool("a;rpm=4,b", { replicas: () => 2 });
    expect(shared.tally(shared.picks(10))).toEqual({ a: 2, b: 8 });
  });

  it("keeps a key within its tokens per minute, counting the estimate and then what the call used", () => {
    const { keys, clock } = pool("a;tpm=100;weight=1000,b");
    const first = keys.take(60);
    expect(first.apiKey).toBe("a");
    expect(keys.take(60).apiKey).toBe("b"); // 60 + 60 > 100
    first.used(20); // the answer reported 20 tokens: 80 left
    expect(keys.take(60).apiKey).toBe("a");
    clock.now += 61_000;
    expect(keys.view().keys.map((key) => key.tokens_last_minute)).toEqual([0, 0]);
  });

  it("rests a key for its Retry-After after a 429, then uses it again; without one for the cooldown", () => {
    const { keys, clock, picks, tally } = pool("a,b,c");
    const use = keys.take(10);
    expect(use.apiKey).toBe("a");
    use.answeredWith(429, 2);
    expect(keys.view().keys[0]).toMatchObject({ state: "cooling", until: new Date(clock.now + 2_000).toISOString() });
    expect(tally(picks(10))).toEqual({ b: 5, c: 5 });
    clock.now += 1_999;
    expect(picks(4)).not.toContain("a");
    clock.now += 1;
    expect(tally(picks(3))).toEqual({ a: 1, b: 1, c: 1 });
    const silent = keys.take(10);
    silent.answeredWith(429);
    expect(keys.view().keys.find((key) => key.state === "cooling")!.until).toBe(new Date(clock.now + 10_000).toISOString());
  });

  it("an answer to a call sent before the 429 does not end the rest; one sent while resting does", () => {
    const { keys, clock } = pool("a");
    const before = keys.take(10);
    clock.now += 5;
    keys.take(10).answeredWith(429, 30);
    before.answeredWith(200);
    expect(keys.states()).toEqual({ active: 0, cooling: 1, refused: 0 });
    clock.now += 5;
    const during = keys.take(10); // a pool of one: its key, resting or not
    expect(during.apiKey).toBe("a");
    during.answeredWith(200);
    expect(keys.states()).toEqual({ active: 1, cooling: 0, refused: 0 });
  });

  it("takes a refused key out of the pool, logs it once by fingerprint, and tries it again after the refusal time", () => {
    const { keys, clock, picks, tally, refusals, counted } = pool("sk-refused,sk-good");
    const first = keys.take(10);
    const second = keys.take(10);
    expect([first.apiKey, second.apiKey]).toEqual(["sk-refused", "sk-good"]);
    first.answeredWith(401);
    expect(refusals).toEqual([
      {
        pool: "OPENAI_API_KEY",
        key: first.fingerprint,
        group: first.group,
        status: 401,
        retry_at: new Date(clock.now + 600_000).toISOString(),
      },
    ]);
    expect(tally(picks(6))).toEqual({ "sk-good": 6 });
    clock.now += 600_000;
    const again = keys.take(10);
    expect(again.apiKey).toBe("sk-refused");
    again.answeredWith(403);
    expect(refusals).toHaveLength(2); // refused again after its time out: logged again, once
    expect(counted).toContain(`OPENAI_API_KEY ${first.fingerprint} refused`);
    expect(JSON.stringify([refusals, counted, keys.view()])).not.toContain("sk-refused");
  });

  it("prefers a usable key of the conversation's group, and any other when none of it is usable", () => {
    const { keys, picks, tally } = pool("a1;group=acct-a,a2;group=acct-a,b1;group=acct-b");
    expect(tally(picks(6, 10, "acct-b"))).toEqual({ b1: 6 });
    expect(tally(picks(6, 10, "acct-a"))).toEqual({ a1: 3, a2: 3 });
    keys.take(10, "acct-b").answeredWith(429, 5);
    expect(keys.hasUsable(10, "acct-b")).toBe(false);
    expect(keys.hasUsable(10, "acct-a")).toBe(true);
    expect(tally(picks(4, 10, "acct-b"))).toEqual({ a1: 2, a2: 2 });
  });

  it("never stops a call: with no usable key, the one usable soonest goes, refused keys last", () => {
    const { keys, clock } = pool("a,b,c");
    keys.take(10).answeredWith(429, 30); // a
    keys.take(10).answeredWith(401); // b
    keys.take(10).answeredWith(429, 5); // c
    expect(keys.hasUsable(10)).toBe(false);
    expect(keys.take(10).apiKey).toBe("c");
    clock.now += 40_000;
    expect(keys.take(10).apiKey).not.toBe("b");
    const over = pool("a;rpm=1,b;rpm=1");
    over.picks(2);
    over.clock.now += 10_000;
    over.keys.take(10).answeredWith(200); // a third call, over both limits: it goes all the same
    expect(
      over.keys
        .view()
        .keys.map((key) => key.requests_last_minute)
        .reduce((sum, count) => sum + count),
    ).toBe(3);
  });

  it("counts every attempt's outcome once, by pool, fingerprint and outcome", () => {
    const { keys, counted } = pool("a,b");
    const use: KeyUse = keys.take(10);
    use.answeredWith(500);
    use.answeredWith(200); // an outcome is given once
    keys.take(10).unanswered();
    expect(counted).toEqual([`OPENAI_API_KEY ${use.fingerprint} failed`, expect.stringMatching(/^OPENAI_API_KEY [0-9a-f]{8} failed$/)]);
  });

  it("shows each key by fingerprint, group, weight, limits, state and last minute's use", () => {
    const { keys, picks } = pool("sk-a;weight=2;rpm=500;group=acct-a,sk-b;tpm=9000");
    picks(3);
    expect(keys.view()).toEqual({
      pool: "OPENAI_API_KEY",
      source: "OPENAI_API_KEYS",
      keys: [
        {
          fingerprint: expect.stringMatching(/^[0-9a-f]{8}$/),
          group: "acct-a",
          weight: 2,
          rpm: 500,
          tpm: null,
          state: "active",
          until: null,
          requests_last_minute: 2,
          tokens_last_minute: 20,
        },
        expect.objectContaining({ weight: 1, rpm: null, tpm: 9000, state: "active", requests_last_minute: 1 }),
      ],
    });
  });
});
