// Cached key validation. Answers come from the control plane and are kept
// for at most the TTL it returns (<= 30 s); revocations are pushed and drop
// entries at once. While the control plane is unreachable, entries already
// known valid keep working for the grace period; nothing new can be admitted.
// Valid keys and keys found not valid are kept apart, each bounded and least
// recently used out first: a flood of made-up keys evicts only other made-up
// keys, and what it may ask the control plane is bounded per client
// (failed-validations.ts).
import { NO_SPAN, type TraceSpan } from "@gateway/proto/tracing";
import { hash as digest } from "node:crypto";
import type { ControlPlaneClientWrapper } from "../control-plane/control-plane-client";
import { authFailuresExceeded, controlPlaneUnavailable, GatewayError, isOutage } from "../errors";
import { FailedValidationLimit } from "./failed-validations";
import { LruMap } from "./lru-map";

export interface KeyIdentity {
  projectId: string;
  keyId: string;
  /** The project's requests per minute: null = deployment default, 0 = none. */
  rpmLimit: number | null;
  /** The key's own limits (docs/keys.md). */
  key: {
    /** Its own requests per minute, within the project's; null = none. */
    rpmLimit: number | null;
    /** It has a daily cap or a total budget: reserved request by request, never leased. */
    moneyLimits: boolean;
    /** It stops working then (ms since the epoch); 0 = never. */
    expiresAtMs: number;
    /** The key whose limits apply (its successor after a rotation): the rate window is this one's. */
    limitsKeyId: string;
  };
}

interface Entry {
  identity: KeyIdentity | undefined; // undefined: the key is not valid
  expiresAtMs: number;
  validatedAtMs: number;
}

/** Valid keys kept at most (each about 1 KB with its identity). */
export const MAX_VALID_ENTRIES = 100_000;
/** Keys found not valid kept at most: enough for the clients still sending a revoked or mistyped key. */
export const MAX_INVALID_ENTRIES = 10_000;

/** A key past its expiry is refused at once, without waiting for the sweeper's revocation to arrive. */
const expired = (identity: KeyIdentity, now: number) => identity.key.expiresAtMs > 0 && identity.key.expiresAtMs <= now;

export class KeyCache {
  private readonly entries = new LruMap<string, Entry>(MAX_VALID_ENTRIES);
  private readonly invalid = new LruMap<string, Entry>(MAX_INVALID_ENTRIES);
  private readonly failures: FailedValidationLimit;
  private readonly inflight = new Map<string, Promise<KeyIdentity | undefined>>();
  /** Keys revoked lately: a validation that was in flight when the push came must not revive them. */
  private readonly revoked = new Map<string, number>();
  /** When keys' limits last changed (performance.now()): an answer asked for before that is used once, not kept. */
  private readonly changed = new Map<string, number>();

  constructor(
    private readonly controlPlane: Pick<ControlPlaneClientWrapper, "validateKey">,
    private readonly maxTtlSeconds: number,
    private readonly graceMs: number,
    /** Failed validations per client and minute (AUTH_FAILURES_PER_MINUTE; 0: no limit). */
    failuresPerMinute = 0,
  ) {
    this.failures = new FailedValidationLimit(failuresPerMinute);
  }

  /** Sees every lookup's result (metrics): hit, miss (asked the control plane), stale (the control plane was away). */
  onLookup: (result: "hit" | "miss" | "stale") => void = () => {};
  /** Sees each key the control plane found not valid (invalid), and each refused unasked because its client had too many (throttled). */
  onFailure: (outcome: "invalid" | "throttled") => void = () => {};

  /**
   * The key's identity, or undefined when the key is not valid: at once from the cache (no promise on the
   * request path for a known key), else once the control plane answered. `client`: the caller's address,
   * whose failed validations are limited; throws 429 auth_failures_exceeded, unasked, past its limit.
   */
  validate(key: string, span: TraceSpan = NO_SPAN, client?: () => string): KeyIdentity | undefined | Promise<KeyIdentity | undefined> {
    const hash = digest("sha256", key, "base64"); // one-shot: no Hash object per request
    const now = Date.now();
    const entry = this.entries.get(hash) ?? this.invalid.get(hash);
    if (entry && entry.expiresAtMs > now) {
      this.onLookup("hit");
      span.set("gateway.key_cache", "hit");
      return entry.identity && expired(entry.identity, now) ? undefined : entry.identity;
    }
    let pending = this.inflight.get(hash);
    if (pending)
      span.set("gateway.key_cache", "shared"); // another request's lookup answers this one
    else {
      // A key known valid a moment ago is refreshed, not guessed: it takes nothing from its client's failures.
      const address = entry?.identity ? undefined : client?.();
      const retryAfterSeconds = address === undefined ? 0 : this.failures.take(address);
      if (retryAfterSeconds > 0) {
        this.onFailure("throttled");
        throw authFailuresExceeded(retryAfterSeconds);
      }
      pending = this.fetch(hash, key, entry, span, address).finally(() => this.inflight.delete(hash));
      this.inflight.set(hash, pending);
    }
    return pending;
  }

  private async fetch(
    hash: string,
    key: string,
    stale: Entry | undefined,
    span: TraceSpan,
    client: string | undefined,
  ): Promise<KeyIdentity | undefined> {
    const askedAt = performance.now();
    try {
      const answer = await this.controlPlane.validateKey(key, span).catch((error: unknown) => {
        if (client !== undefined) this.failures.refund(client); // the control plane could not say: not the client's failure
        throw error;
      });
      this.onLookup("miss"); // answered by the control plane (a stale answer counts as "stale" instead)
      span.set("gateway.key_cache", "miss");
      const identity =
        answer.valid && !this.revoked.has(answer.keyId)
          ? {
              projectId: answer.projectId,
              keyId: answer.keyId,
              rpmLimit: answer.limits?.rpmLimit ?? null,
              key: {
                rpmLimit: answer.keyLimits?.rpmLimit ?? null,
                moneyLimits: answer.keyLimits?.moneyLimits ?? false,
                expiresAtMs: Number(answer.keyLimits?.expiresAtUnixMs ?? 0),
                limitsKeyId: answer.keyLimits?.limitsKeyId || answer.keyId,
              },
            }
          : undefined;
      if (identity) {
        if (client !== undefined) this.failures.refund(client);
      } else this.onFailure("invalid");
      const ttlSeconds = Math.min(answer.cacheTtlSeconds || this.maxTtlSeconds, this.maxTtlSeconds);
      if ((this.changed.get(answer.keyId) ?? Number.NEGATIVE_INFINITY) >= askedAt) return identity;
      const fresh = { identity, expiresAtMs: Date.now() + ttlSeconds * 1000, validatedAtMs: Date.now() };
      if (identity) {
        this.invalid.delete(hash);
        this.entries.set(hash, fresh);
      } else {
        this.entries.delete(hash); // a key no longer valid (expired, revoked while this replica missed the push)
        this.invalid.set(hash, fresh);
      }
      return identity;
    } catch (error) {
      // Only an outage is ridden out with what was known: a control plane that answers with a failure is not away.
      if (isOutage(error) && stale?.identity && Date.now() - stale.validatedAtMs < this.graceMs && !expired(stale.identity, Date.now())) {
        this.onLookup("stale");
        span.set("gateway.key_cache", "stale");
        return stale.identity;
      }
      throw error instanceof GatewayError ? error : controlPlaneUnavailable();
    }
  }

  revokeKey(keyId: string): void {
    const now = Date.now();
    this.revoked.set(keyId, now);
    for (const [id, at] of this.revoked) if (now - at > 2 * this.maxTtlSeconds * 1000) this.revoked.delete(id);
    for (const [hash, entry] of this.entries) if (entry.identity?.keyId === keyId) this.entries.delete(hash);
  }

  /** A key's limits or expiry changed, or it was rotated: the next request asks the control plane. */
  keyChanged(keyId: string): void {
    const now = performance.now();
    this.changed.set(keyId, now);
    for (const [id, at] of this.changed) if (now - at > 2 * this.maxTtlSeconds * 1000) this.changed.delete(id);
    for (const [hash, entry] of this.entries)
      if (entry.identity?.keyId === keyId || entry.identity?.key.limitsKeyId === keyId) this.entries.delete(hash);
  }

  projectChanged(projectId: string, rpmLimit: number | null): void {
    for (const [, entry] of this.entries) if (entry.identity?.projectId === projectId) entry.identity.rpmLimit = rpmLimit;
  }
}
