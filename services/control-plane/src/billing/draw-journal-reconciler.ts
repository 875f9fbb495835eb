// Applies the draw journal of budget leases whose data plane died (docs/money.md, "A killed data
// plane"). A data plane keeps each answered leased debit in Redis before the answer leaves; the draws
// it had not sent yet die with it. Before the sweeper voids an expired lease (a live data plane
// renews its leases, so an expired one is a dead data plane's), this applies every journalled draw
// of it while it still holds their money: a draw that did reach the ledger is a replay (draws are
// idempotent by request id), so each debit lands exactly once.
import { type DrawEntry, decodeDrawEntry, drawJournalKey } from "@gateway/proto";
import { Redis } from "ioredis";
import type { LedgerService } from "./ledger-service";

/** An expired lease whose journal cannot be read is kept for at most this many hold TTLs more (renewed once per TTL). */
const UNREADABLE_TTLS = 4;

/** Draws per ledger call, as a data plane's Draw call carries at most. */
const DRAWS_PER_CALL = 256;

export class DrawJournalReconciler {
  private readonly redis: Redis;
  /** Leases whose journal could not be read, and since when (Date.now()). */
  private readonly unreadSince = new Map<string, number>();
  /** Journal entries applied (replays of draws that had landed included), and expired leases kept because their journal could not be read: metrics. */
  entriesApplied = 0;
  deferred = 0;

  constructor(
    url: string,
    private readonly ledger: LedgerService,
    private readonly log: { warn(object: object, message: string): void; error(object: object, message: string): void },
  ) {
    this.redis = new Redis(url, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      // A sweep waits for these reads before it voids anything: a stalled Redis must not hold it up long.
      commandTimeout: 1_000,
      connectTimeout: 1_000,
      retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
    });
    this.redis.on("error", () => {}); // each read reports its own failure
  }

  /** Applies the journal of every lease due to expire at `at`; the sweeper voids them after this returns. */
  async beforeExpiry(at: Date): Promise<void> {
    const due = await this.ledger.dueLeases(at);
    const results = await Promise.allSettled(due.map((lease) => this.reconcile(lease.leaseId, lease.projectId)));
    const failed = results.find((result): result is PromiseRejectedResult => result.status === "rejected");
    if (failed) throw failed.reason; // nothing is voided in this round; the next one tries again
  }

  private async reconcile(leaseId: string, projectId: string): Promise<void> {
    const key = drawJournalKey(leaseId);
    let texts: string[];
    try {
      texts = await this.redis.hvals(key);
    } catch (error) {
      // Voiding the lease now would turn its journalled debits into late draws (clamped to what is
      // free): it is renewed instead, for at most UNREADABLE_TTLS hold TTLs, while the journal cannot be read.
      const since = this.unreadSince.get(leaseId) ?? Date.now();
      this.unreadSince.set(leaseId, since);
      if (Date.now() - since < UNREADABLE_TTLS * this.ledger.holdTtlSeconds * 1000) {
        this.log.warn({ err: error, leaseId }, "draw journal unreadable: an expired lease is kept until it can be read");
        await this.ledger.renew([{ requestId: leaseId, projectId }]);
        this.deferred++;
        return;
      }
      this.unreadSince.delete(leaseId);
      this.log.error({ err: error, leaseId }, "draw journal unreadable for four hold TTLs: the lease expires without it");
      return;
    }
    this.unreadSince.delete(leaseId);
    const draws: DrawEntry[] = [];
    for (const text of texts) {
      const entry = decodeDrawEntry(text);
      // Only this lease's own entries: an entry becomes a debit.
      if (!entry || entry.leaseId !== leaseId || entry.projectId !== projectId) {
        this.log.error({ leaseId }, "draw journal entry not readable or not of this lease: skipped");
        continue;
      }
      draws.push(entry);
    }
    for (let start = 0; start < draws.length; start += DRAWS_PER_CALL) {
      const chunk = draws.slice(start, start + DRAWS_PER_CALL);
      const results = await this.ledger.draw(chunk, { extendLease: false });
      // One not applied: this sweep stops before voiding anything and the next one tries again.
      if (results.some((result) => result.outcome === "failed")) throw new Error(`draw journal of ${leaseId}: a draw was not applied`);
      this.entriesApplied += chunk.length;
    }
    // Only what was applied goes: an entry appended meanwhile (a data plane cut off, not dead) stays.
    if (draws.length > 0) await this.redis.hdel(key, ...draws.map((draw) => draw.requestId)).catch(() => {});
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
