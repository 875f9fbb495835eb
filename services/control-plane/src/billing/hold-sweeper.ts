// Periodically voids holds whose TTL passed (a data plane crashed or lost its
// settle), so their amount returns to the balance. Counts what it voided.
import type { LedgerService } from "./ledger-service";

export class HoldSweeper {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  expiredTotal = 0;

  constructor(
    private readonly ledger: LedgerService,
    private readonly intervalMs: number,
    private readonly onError: (error: unknown) => void,
  ) {}

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
    let total = 0;
    for (;;) {
      const count = await this.ledger.expireHolds(100);
      total += count;
      this.expiredTotal += count;
      if (count < 100) return total;
    }
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }
}
