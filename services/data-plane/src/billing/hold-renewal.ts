// Keeps the holds of running requests alive (docs/money.md, "Long requests").
// A hold expires the hold TTL after it was placed so that a dead data plane's
// money comes back; a request still running on a live data plane must not lose
// its hold that way (a stream longer than the TTL was billed whatever was left,
// down to $0). Every hold and lease this data plane holds is renewed once it is
// a third of the TTL old, all of them in one Renew call per round, so only the
// holds of a data plane that stopped renewing (dead, or cut off) expire.
import type { ControlPlaneClientWrapper } from "../control-plane/control-plane-client";

interface Renewed {
  projectId: string;
  /** The hold TTL the control plane gave (ms). */
  ttlMs: number;
  /** When the hold was placed or last renewed (performance.now(), at sending). */
  renewedAt: number;
  placedAt: number;
  /** Told of each renewal (`sentAt`, performance.now()) or that the hold is closed (`active` false). */
  onRenewed?: (active: boolean, sentAt: number) => void;
}

/**
 * A hold is renewed for at most this long after it was placed: far beyond any request (upstream and
 * idle timeouts end them long before), so that a hold leaked by a bug still expires one day.
 */
export const MAX_RENEWED_MS = 24 * 3600 * 1000;

/** One Renew call carries at most this many holds; more go in further calls of the same round. */
const MAX_PER_CALL = 500;

export class HoldRenewal {
  private readonly holds = new Map<string, Renewed>();
  private timer: NodeJS.Timeout | undefined;
  private tickMs = Number.POSITIVE_INFINITY;
  private running = false;

  constructor(
    private readonly controlPlane: Pick<ControlPlaneClientWrapper, "renew">,
    private readonly log: { warn(object: object, message: string): void },
  ) {}

  /** A hold (or lease) placed now that expires `ttlSeconds` from now unless renewed; 0 (an older control plane): not renewed. */
  track(requestId: string, projectId: string, ttlSeconds: number, onRenewed?: Renewed["onRenewed"]): void {
    if (!(ttlSeconds > 0)) return;
    const ttlMs = ttlSeconds * 1000;
    const now = performance.now();
    this.holds.set(requestId, { projectId, ttlMs, renewedAt: now, placedAt: now, ...(onRenewed ? { onRenewed } : {}) });
    // Rounds often enough that a hold a third of the TTL old is renewed well before half of it: a
    // lease's answers skip the journal and wait for their draws once half a TTL passed unrenewed.
    const tickMs = Math.min(5_000, Math.max(100, ttlMs / 12));
    if (tickMs < this.tickMs || !this.timer) {
      clearInterval(this.timer);
      this.tickMs = tickMs;
      this.timer = setInterval(() => void this.round(), tickMs);
      this.timer.unref();
    }
  }

  /** The hold was settled, released or given back: no more renewals. */
  forget(requestId: string): void {
    this.holds.delete(requestId);
  }

  get trackedCount(): number {
    return this.holds.size;
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.tickMs = Number.POSITIVE_INFINITY;
  }

  /** Renews every hold a third of its TTL old (or older); one round at a time. */
  async round(now = performance.now()): Promise<void> {
    if (this.running) return;
    for (const [requestId, hold] of this.holds) {
      if (now - hold.placedAt < MAX_RENEWED_MS) continue;
      this.holds.delete(requestId);
      this.log.warn({ reqId: requestId }, "a hold open for a day is not renewed any more: it expires");
    }
    const due = [...this.holds].filter(([, hold]) => now - hold.renewedAt >= hold.ttlMs / 3);
    if (due.length === 0) return;
    this.running = true;
    try {
      for (let start = 0; start < due.length; start += MAX_PER_CALL) {
        const chunk = due.slice(start, start + MAX_PER_CALL);
        const sentAt = performance.now();
        let answer: Awaited<ReturnType<ControlPlaneClientWrapper["renew"]>>;
        try {
          answer = await this.controlPlane.renew(chunk.map(([requestId, hold]) => ({ requestId, projectId: hold.projectId })));
        } catch (error) {
          // Unreachable: tried again next round, while a third of the TTL or more is left.
          this.log.warn({ err: error, holds: chunk.length }, "could not renew holds of running requests: retried next round");
          continue;
        }
        chunk.forEach(([requestId, hold], index) => {
          const active = answer.active[index] ?? false;
          if (this.holds.get(requestId) !== hold) return; // settled meanwhile
          if (active) hold.renewedAt = sentAt;
          else this.holds.delete(requestId);
          hold.onRenewed?.(active, sentAt);
        });
      }
    } finally {
      this.running = false;
    }
  }
}
