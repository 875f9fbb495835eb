// How many failed key validations one client may cost the control plane (AUTH_FAILURES_PER_MINUTE): a
// token bucket per client address that holds that many and refills at that rate. A key the data plane
// has not cached takes a token before it is sent to the control plane and gives it back when the key
// turns out valid, so valid keys never run a client's bucket down, and a flood of random keys costs
// at most the bucket and its refill. An IPv6 client counts by its /64 (one host's usual allocation),
// an IPv4-mapped address as the IPv4 one. At most MAX_CLIENTS addresses are remembered: the least
// recently seen is forgotten first (a full bucket is the same as none).
import ipaddr from "ipaddr.js";
import { LruMap } from "./lru-map";

export const MAX_CLIENTS = 10_000;

interface Bucket {
  tokens: number;
  /** performance.now() when `tokens` was last brought up to date. */
  at: number;
}

export class FailedValidationLimit {
  private readonly buckets = new LruMap<string, Bucket>(MAX_CLIENTS);
  private readonly perMs: number;

  constructor(
    /** Failed validations per client and minute, also the bucket's size; 0: no limit. */
    private readonly perMinute: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.perMs = perMinute / 60_000;
  }

  /** Takes one validation for `client`: 0 when taken, else the whole seconds until one is back. */
  take(client: string): number {
    if (this.perMinute === 0) return 0;
    const bucket = this.current(clientGroup(client));
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / this.perMs / 1000));
  }

  /** Gives back a validation that did not fail (the key was valid, or the control plane could not say). */
  refund(client: string): void {
    if (this.perMinute === 0) return;
    const bucket = this.current(clientGroup(client));
    bucket.tokens = Math.min(this.perMinute, bucket.tokens + 1);
  }

  private current(group: string): Bucket {
    const now = this.now();
    let bucket = this.buckets.get(group);
    if (!bucket) {
      bucket = { tokens: this.perMinute, at: now };
      this.buckets.set(group, bucket);
    }
    bucket.tokens = Math.min(this.perMinute, bucket.tokens + (now - bucket.at) * this.perMs);
    bucket.at = now;
    return bucket;
  }
}

/** The address a client's failures are counted under: IPv4 as is, IPv6 by its /64. */
export function clientGroup(address: string): string {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.process(address); // an IPv4-mapped IPv6 address becomes its IPv4 one
  } catch {
    return address; // not an IP address (a test's name, a socket path): counted as it is
  }
  if (parsed.kind() === "ipv4") return parsed.toString();
  return `${(parsed as ipaddr.IPv6).parts
    .slice(0, 4)
    .map((part) => part.toString(16))
    .join(":")}::/64`;
}
