// Periodically voids holds whose TTL passed (a data plane crashed or lost its
// settle), so their amount returns to the balance. Counts what it voided. Also
// revokes keys whose expiry passed (docs/keys.md), so the data planes drop them, and rolls up the debits
// written since its last round (docs/money.md, "Rollups").
import type { DrawJournalReconciler } from "./draw-journal-reconciler";
import type { LedgerService } from "./ledger-service";

export class HoldSweeper {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  expiredTotal = 0;

  constructor(
    private readonly ledger: LedgerService,
    private readonly intervalMs: number,
    private readonly onError: (error: unknown) => void,
    /** Applies a dead data plane's journalled draws before its leases are voided (none: no journal). */
    private readonly journal?: DrawJournalReconciler,
    private readonly keys?: { revokeExpired(at: Date): Promise<number> },
  ) {}

  /** Journal entries applied before leases were voided (cumulative; replays of draws that had landed included). */
  get journalEntriesApplied(): number {
    return this.journal?.entriesApplied ?? 0;
  }

  /** Expired leases kept (renewed) because their journal could not be read (cumulative). */
  get journalDeferrals(): number {
    return this.journal?.deferred ?? 0;
  }

  start(): void {
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = this.sweep()
        .then(() => undefined, this.onError)
        .finally(() => (this.running = undefined));
    }, this.intervalMs);
    this.timer.unref();
  }

  /** Voids every expired hold, a hundred per transaction so money writes never wait long. */
  async sweep(): Promise<number> {
    // One instant for the journal and the expiry: a lease due after the journal was read is not voided in this round.
    const at = this.ledger.clock.now();
    await this.journal?.beforeExpiry(at);
    await this.keys?.revokeExpired(at);
    let total = 0;
    for (;;) {
      const count = await this.ledger.expireHolds(100, at);
      total += count;
      this.expiredTotal += count;
      if (count < 100) break;
    }
    // After the expiry, and on its own: a roll-up that fails (reported) never keeps holds from expiring.
    await this.ledger.rollUpPending().catch(this.onError);
    return total;
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
    await this.journal?.close();
  }
}
