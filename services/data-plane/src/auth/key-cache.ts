// Cached key validation. Answers come from the control plane and are kept
// for at most the TTL it returns (<= 30 s); revocations are pushed and drop
// entries at once. While the control plane is unreachable, entries already
// known valid keep working for the grace period; nothing new can be admitted.
import { NO_SPAN, type TraceSpan } from "@gateway/proto/tracing";
import { hash as digest } from "node:crypto";
import type { ControlPlaneClientWrapper } from "../control-plane/control-plane-client";
import { controlPlaneUnavailable, GatewayError, isOutage } from "../errors";

export interface KeyIdentity {
  projectId: string;
  keyId: string;
  /** null = deployment default, 0 = none. */
  rpmLimit: number | null;
}

interface Entry {
  identity: KeyIdentity | undefined; // undefined: the key is not valid
  expiresAtMs: number;
  validatedAtMs: number;
}

const MAX_ENTRIES = 100_000;

export class KeyCache {
  private readonly entries = new Map<string, Entry>();
  private readonly inflight = new Map<string, Promise<KeyIdentity | undefined>>();
  /** Keys revoked lately: a validation that was in flight when the push came must not revive them. */
  private readonly revoked = new Map<string, number>();

  constructor(
    private readonly controlPlane: Pick<ControlPlaneClientWrapper, "validateKey">,
    private readonly maxTtlSeconds: number,
    private readonly graceMs: number,
  ) {}

  /** Sees every lookup's result (metrics): hit, miss (asked the control plane), stale (the control plane was away). */
  onLookup: (result: "hit" | "miss" | "stale") => void = () => {};

  /** Returns the key's identity, or undefined when the key is not valid. */
  async validate(key: string, span: TraceSpan = NO_SPAN): Promise<KeyIdentity | undefined> {
    const hash = digest("sha256", key, "base64"); // one-shot: no Hash object per request
    const now = Date.now();
    const entry = this.entries.get(hash);
    if (entry && entry.expiresAtMs > now) {
      this.onLookup("hit");
      span.set("gateway.key_cache", "hit");
      return entry.identity;
    }
    let pending = this.inflight.get(hash);
    if (pending)
      span.set("gateway.key_cache", "shared"); // another request's lookup answers this one
    else {
      pending = this.fetch(hash, key, entry, span).finally(() => this.inflight.delete(hash));
      this.inflight.set(hash, pending);
    }
    return pending;
  }

  private async fetch(hash: string, key: string, stale: Entry | undefined, span: TraceSpan): Promise<KeyIdentity | undefined> {
    try {
      const answer = await this.controlPlane.validateKey(key, span);
      this.onLookup("miss"); // answered by the control plane (a stale answer counts as "stale" instead)
      span.set("gateway.key_cache", "miss");
      const identity =
        answer.valid && !this.revoked.has(answer.keyId)
          ? { projectId: answer.projectId, keyId: answer.keyId, rpmLimit: answer.limits?.rpmLimit ?? null }
          : undefined;
      const ttlSeconds = Math.min(answer.cacheTtlSeconds || this.maxTtlSeconds, this.maxTtlSeconds);
      if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(hash, { identity, expiresAtMs: Date.now() + ttlSeconds * 1000, validatedAtMs: Date.now() });
      return identity;
    } catch (error) {
      // Only an outage is ridden out with what was known: a control plane that answers with a failure is not away.
      if (isOutage(error) && stale?.identity && Date.now() - stale.validatedAtMs < this.graceMs) {
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

  projectChanged(projectId: string, rpmLimit: number | null): void {
    for (const entry of this.entries.values()) if (entry.identity?.projectId === projectId) entry.identity.rpmLimit = rpmLimit;
  }
}
