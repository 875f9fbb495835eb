// The key cache and a key's own terms (docs/keys.md): a key past its expiry is refused from the
// cache at once; a change to a key drops what was cached of it, and an answer asked for before the
// change is used once but not kept.
import { describe, expect, it } from "vitest";
import { KeyCache } from "../../src/auth/key-cache";

const KEY = "sk_acme_0123456789012345678901234567890123456789012";

function controlPlane(expiresAtMs: number) {
  const answers: { calls: number; release?: () => void; hold: boolean } = { calls: 0, hold: false };
  return Object.assign(answers, {
    validateKey: async () => {
      answers.calls++;
      if (answers.hold) await new Promise<void>((resolve) => (answers.release = resolve));
      return {
        valid: true,
        projectId: "acme",
        keyId: "key_1",
        limits: { rpmLimit: 0 },
        cacheTtlSeconds: 30,
        keyLimits: { rpmLimit: 7, moneyLimits: true, expiresAtUnixMs: String(expiresAtMs), limitsKeyId: "key_2" },
      };
    },
  });
}

describe("KeyCache and a key's own terms", () => {
  it("carries the key's limits, and refuses a cached key once its expiry passes", async () => {
    const expiresAt = Date.now() + 80;
    const cache = new KeyCache(controlPlane(expiresAt) as never, 30, 60_000);
    expect(await cache.validate(KEY)).toMatchObject({
      keyId: "key_1",
      key: { rpmLimit: 7, moneyLimits: true, expiresAtMs: expiresAt, limitsKeyId: "key_2" },
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await cache.validate(KEY)).toBeUndefined();
  });

  it("asks the control plane again after a change to the key or to its successor", async () => {
    const source = controlPlane(0);
    const cache = new KeyCache(source as never, 30, 60_000);
    await cache.validate(KEY);
    await cache.validate(KEY);
    expect(source.calls).toBe(1);
    cache.keyChanged("key_2"); // the successor whose limits apply
    await cache.validate(KEY);
    expect(source.calls).toBe(2);
    cache.keyChanged("key_1");
    await cache.validate(KEY);
    expect(source.calls).toBe(3);
  });

  it("does not keep an answer that was asked for before the change arrived", async () => {
    const source = controlPlane(0);
    const cache = new KeyCache(source as never, 30, 60_000);
    source.hold = true;
    const pending = cache.validate(KEY);
    await new Promise((resolve) => setImmediate(resolve));
    cache.keyChanged("key_1");
    source.hold = false;
    source.release!();
    expect(await pending).toMatchObject({ keyId: "key_1" });
    await cache.validate(KEY);
    expect(source.calls).toBe(2);
  });
});
