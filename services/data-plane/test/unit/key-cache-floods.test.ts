// The key cache under a flood of made-up keys (issue 33, item 3): valid keys and keys found not valid
// are cached apart, each bounded and least recently used out first, so made-up keys evict no valid
// one; and the keys one client address may have checked and found not valid are limited
// (AUTH_FAILURES_PER_MINUTE), past which it gets 429 without the control plane being asked.
import { describe, expect, it } from "vitest";
import { KeyCache, MAX_INVALID_ENTRIES, MAX_VALID_ENTRIES } from "../../src/auth/key-cache";
import { clientGroup, FailedValidationLimit } from "../../src/auth/failed-validations";
import { GatewayError } from "../../src/errors";
import { thrown } from "../support/thrown";

const validKey = (index: number | string) => `sk_acme_valid${String(index).padStart(38, "0")}`;
let madeUp = 0;
/** A key never issued (well-formed, each one new). */
const randomKey = () => `sk_acme_madeup${String(madeUp++).padStart(37, "0")}`;

/** A control plane that finds keys with "valid" in them valid (or fails every call while `down`). */
function controlPlane() {
  const state = { calls: 0, down: false };
  return Object.assign(state, {
    validateKey: async (key: string) => {
      state.calls++;
      if (state.down) throw new GatewayError("control_plane_unavailable", "away");
      return key.includes("valid")
        ? { valid: true, projectId: "acme", keyId: `key_${key.slice(-12)}`, cacheTtlSeconds: 30 }
        : { valid: false, projectId: "", keyId: "", cacheTtlSeconds: 30 };
    },
  });
}

describe("KeyCache bounds", () => {
  it("evicts the least recently used valid key, not the first cached: one in use survives 100,000 others", async () => {
    const source = controlPlane();
    const cache = new KeyCache(source as never, 30, 60_000);
    const used = validKey("in-use");
    await cache.validate(used);
    for (let index = 0; index < MAX_VALID_ENTRIES; index++) {
      await cache.validate(validKey(index));
      if (index % 1000 === 0) expect(cache.validate(used)).toMatchObject({ keyId: expect.any(String) }); // a hit: no promise
    }
    const calls = source.calls;
    expect(cache.validate(used)).toMatchObject({ projectId: "acme" });
    expect(source.calls).toBe(calls);
  });

  it("keeps keys found not valid apart: 100,001 made-up keys evict no valid key, and at most 10,000 of them are kept", async () => {
    const source = controlPlane();
    const cache = new KeyCache(source as never, 30, 60_000);
    const valid = validKey(1);
    await cache.validate(valid);
    const first = randomKey();
    expect(await cache.validate(first)).toBeUndefined();
    let last = first;
    for (let index = 0; index < MAX_VALID_ENTRIES; index++) {
      last = randomKey();
      await cache.validate(last);
    }
    const calls = source.calls;
    expect(cache.validate(valid)).toMatchObject({ projectId: "acme" }); // still cached
    expect(cache.validate(last)).toBeUndefined(); // a recent miss is answered from its own cache
    expect(source.calls).toBe(calls);
    await cache.validate(first); // long evicted from the 10,000 misses kept
    expect(source.calls).toBe(calls + 1);
    expect(MAX_INVALID_ENTRIES).toBe(10_000);
  });
});

describe("KeyCache: failed validations per client address", () => {
  it("asks at most 60 made-up keys of one address a minute, then answers 429 unasked", async () => {
    const source = controlPlane();
    const cache = new KeyCache(source as never, 30, 60_000, 60);
    for (let index = 0; index < 60; index++) expect(await cache.validate(randomKey(), undefined, () => "203.0.113.7")).toBeUndefined();
    expect(source.calls).toBe(60);
    const refused = thrown(() => cache.validate(randomKey(), undefined, () => "203.0.113.7"));
    expect(refused).toMatchObject({ kind: "auth_failures_exceeded", status: 429, type: "rate_limit_error", retryable: true });
    expect(Number((refused as GatewayError).headers["retry-after"])).toBeGreaterThanOrEqual(1);
    expect(source.calls).toBe(60);
    // Another address is asked as before.
    expect(await cache.validate(randomKey(), undefined, () => "203.0.113.8")).toBeUndefined();
    expect(source.calls).toBe(61);
  });

  it("serves a valid key it knows to the throttled address; valid keys and outages use none of its budget", async () => {
    const source = controlPlane();
    const cache = new KeyCache(source as never, 30, 60_000, 60);
    const address = "198.51.100.1";
    // 100 valid keys from one address: each given back once found valid.
    for (let index = 0; index < 100; index++) expect(await cache.validate(validKey(index), undefined, () => address)).toBeDefined();
    // Calls the control plane could not answer are given back too.
    source.down = true;
    for (let index = 0; index < 100; index++) await expect(cache.validate(randomKey(), undefined, () => address)).rejects.toThrow();
    source.down = false;
    for (let index = 0; index < 60; index++) await cache.validate(randomKey(), undefined, () => address);
    expect(thrown(() => cache.validate(randomKey(), undefined, () => address))).toMatchObject({ kind: "auth_failures_exceeded" });
    expect(cache.validate(validKey(5), undefined, () => address)).toMatchObject({ projectId: "acme" }); // cached: served
    // A valid key it does not know is refused too until the budget refills (one a second).
    expect(thrown(() => cache.validate(validKey("new"), undefined, () => address))).toMatchObject({ kind: "auth_failures_exceeded" });
  });

  it("counts an IPv6 client by its /64 and an IPv4-mapped address as the IPv4 one", () => {
    expect(clientGroup("2001:db8:1:2:aaaa::1")).toBe("2001:db8:1:2::/64");
    expect(clientGroup("2001:db8:1:2:bbbb:cccc:dddd:eeee")).toBe("2001:db8:1:2::/64");
    expect(clientGroup("2001:db8:1:3::1")).toBe("2001:db8:1:3::/64");
    expect(clientGroup("::ffff:192.0.2.4")).toBe("192.0.2.4");
    expect(clientGroup("192.0.2.4")).toBe("192.0.2.4");
    const limit = new FailedValidationLimit(2);
    expect([limit.take("2001:db8::1"), limit.take("2001:db8::2")]).toEqual([0, 0]);
    expect(limit.take("2001:db8::3")).toBeGreaterThan(0);
    expect(limit.take("2001:db8:0:1::1")).toBe(0);
  });

  it("refills the budget at its rate, up to its size; 0 is no limit", () => {
    let now = 0;
    const limit = new FailedValidationLimit(60, () => now);
    for (let index = 0; index < 60; index++) expect(limit.take("192.0.2.1")).toBe(0);
    expect(limit.take("192.0.2.1")).toBe(1);
    now += 1000;
    expect(limit.take("192.0.2.1")).toBe(0);
    expect(limit.take("192.0.2.1")).toBe(1);
    now += 10 * 60_000; // refilled to 60, not beyond
    for (let index = 0; index < 60; index++) expect(limit.take("192.0.2.1")).toBe(0);
    expect(limit.take("192.0.2.1")).toBeGreaterThan(0);
    const off = new FailedValidationLimit(0);
    for (let index = 0; index < 1000; index++) expect(off.take("192.0.2.1")).toBe(0);
  });
});
