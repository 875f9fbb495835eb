// A cloud credential kept fresh off the request path (providers/cloud/refreshing-credential.ts): one fetch
// shared by every caller, a refresh a margin before expiry with no caller waiting, the old one used while a
// background refresh fails, and a failure that names no secret.
import { afterEach, describe, expect, it, vi } from "vitest";
import { RefreshingCredential } from "../../src/providers/cloud/refreshing-credential";
import { UpstreamCredentialsError } from "../../src/providers/cloud/upstream-auth";

afterEach(() => vi.useRealTimers());

describe("RefreshingCredential", () => {
  it("200 concurrent callers while nothing is held share one fetch", async () => {
    let release: (token: string) => void = () => {};
    const fetch = vi.fn(
      () =>
        new Promise<{ value: string; expiresAtMs: number }>(
          (resolve) => (release = (value) => resolve({ value, expiresAtMs: Date.now() + 3_600_000 })),
        ),
    );
    const credential = new RefreshingCredential(fetch);
    const callers = Array.from({ length: 200 }, () => credential.get());
    release("token-1");
    expect(new Set(await Promise.all(callers))).toEqual(new Set(["token-1"]));
    expect(fetch).toHaveBeenCalledTimes(1);
    expect(await credential.get()).toBe("token-1");
    expect(credential.fetches).toBe(1);
    credential.close();
  });

  it("refreshes in the background a margin before expiry: callers never wait for it", async () => {
    vi.useFakeTimers({ now: 0 });
    let issued = 0;
    const fetch = vi.fn(async () => ({ value: `token-${++issued}`, expiresAtMs: Date.now() + 60 * 60_000 }));
    const credential = new RefreshingCredential(fetch, { marginMs: 5 * 60_000 });
    expect(await credential.get()).toBe("token-1");
    await vi.advanceTimersByTimeAsync(54 * 60_000);
    expect(fetch).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(60_000 + 1);
    expect(fetch).toHaveBeenCalledTimes(2);
    expect(await credential.get()).toBe("token-2");
    credential.close();
  });

  it("one in the last seconds of its life is replaced before it is sent, and still sent if no new one can be had", async () => {
    vi.useFakeTimers({ now: 0 });
    let fail = false;
    let issued = 0;
    const fetch = vi.fn(async () => {
      if (fail) throw new Error("token endpoint unreachable");
      return { value: `token-${++issued}`, expiresAtMs: Date.now() + 60 * 60_000 };
    });
    // No background refresh before the end (a margin longer than the life would refresh at half of it): the caller's own.
    const credential = new RefreshingCredential(fetch, { marginMs: 0 });
    expect(await credential.get()).toBe("token-1");
    vi.setSystemTime(60 * 60_000 - 9_000);
    expect(await credential.get()).toBe("token-2");
    // token-2 expires at 2 h - 9 s.
    vi.setSystemTime(2 * 60 * 60_000 - 14_000);
    fail = true;
    expect(await credential.get()).toBe("token-2");
    vi.setSystemTime(2 * 60 * 60_000 - 9_000);
    await expect(credential.get()).rejects.toThrow(UpstreamCredentialsError);
    credential.close();
  });

  it("a short-lived credential is refreshed at half its life, not in a loop", async () => {
    vi.useFakeTimers({ now: 0 });
    const fetch = vi.fn(async () => ({ value: "short", expiresAtMs: Date.now() + 60_000 }));
    const credential = new RefreshingCredential(fetch, { marginMs: 5 * 60_000 });
    await credential.get();
    await vi.advanceTimersByTimeAsync(29_000);
    expect(fetch).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(fetch).toHaveBeenCalledTimes(2);
    credential.close();
  });

  it("keeps the credential held while a background refresh fails, tries again, and fetches on demand once it expired", async () => {
    vi.useFakeTimers({ now: 0 });
    let fail = false;
    const fetch = vi.fn(async () => {
      if (fail) throw new Error("metadata server unreachable");
      return { value: "token", expiresAtMs: Date.now() + 20 * 60_000 };
    });
    const credential = new RefreshingCredential(fetch, { marginMs: 5 * 60_000, retryMs: 10_000 });
    await credential.get();
    fail = true;
    await vi.advanceTimersByTimeAsync(15 * 60_000 + 1);
    expect(fetch).toHaveBeenCalledTimes(2);
    expect(await credential.get()).toBe("token");
    await vi.advanceTimersByTimeAsync(10_000);
    expect(fetch).toHaveBeenCalledTimes(3);
    await vi.advanceTimersByTimeAsync(5 * 60_000);
    await expect(credential.get()).rejects.toBeInstanceOf(UpstreamCredentialsError);
    credential.close();
  });

  it("a fetch that fails is an UpstreamCredentialsError; invalidate() makes the next call fetch again, unless the one held is brand new", async () => {
    vi.useFakeTimers({ now: 0 });
    let calls = 0;
    const credential = new RefreshingCredential(
      async () => {
        calls++;
        if (calls === 1) throw new Error("no credentials in the chain");
        return { value: `token-${calls}`, expiresAtMs: undefined };
      },
      { minAgeMs: 30_000 },
    );
    await expect(credential.get()).rejects.toThrow(new UpstreamCredentialsError("the credential could not be fetched (Error)"));
    expect(await credential.get()).toBe("token-2");
    credential.invalidate(); // a flood of refusals right after a fetch: kept
    expect(await credential.get()).toBe("token-2");
    await vi.advanceTimersByTimeAsync(30_000);
    credential.invalidate();
    expect(await credential.get()).toBe("token-3");
    credential.close();
  });

  it("after a refusal the next fetch is forced (a caching library must not hand back the refused one), once", async () => {
    vi.useFakeTimers({ now: 0 });
    const forcedFlags: boolean[] = [];
    const credential = new RefreshingCredential(
      async (forced) => {
        forcedFlags.push(forced);
        return { value: `token-${forcedFlags.length}`, expiresAtMs: Date.now() + 3_600_000 };
      },
      { minAgeMs: 1_000 },
    );
    await credential.get();
    await vi.advanceTimersByTimeAsync(1_000);
    credential.invalidate();
    expect(await credential.get()).toBe("token-2");
    await vi.advanceTimersByTimeAsync(1_000);
    expect(await credential.get()).toBe("token-2");
    expect(forcedFlags).toEqual([false, true]);
    credential.close();
  });
});
