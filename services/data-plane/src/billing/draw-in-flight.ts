// One leased answer's draw until it lands. The draw goes to the batcher with this object as both the
// item and the receiver of its answer, so through the batch window (tens of ms, long enough for the
// young generation to promote what it holds) a draw keeps one object alive instead of a chain of
// promises and closures; a promise is made only when an answer waits for its draw (issue 36, item 3).
import type { TraceSpan } from "@gateway/proto/tracing";
import type { DrawCall } from "../control-plane/control-plane-client";
import type { BudgetLeases, Lease } from "./budget-leases";
import type { DrawAnswer, DrawBatcher } from "./draw-batcher";
import type { DrawJournal } from "./draw-journal";
import type { BillingLog } from "./billing-log";

/** What a draw needs of the billing that made it (request-billing.ts). */
export interface DrawOwner {
  readonly draws: DrawBatcher;
  readonly journal: DrawJournal | undefined;
  readonly leases: BudgetLeases;
  readonly log: BillingLog;
  /** After a failed first attempt: the retries, then the background queue (answering `fallbackNano` then). */
  retry(requestId: string, work: () => Promise<bigint>, error: unknown, fallbackNano: bigint): Promise<bigint>;
  /** The draw landed, or was queued for the background retry: it is no longer under way. */
  ended(requestId: string): void;
}

export class DrawInFlight {
  /** The amount on the ledger once landed (or the share, once queued for retry). */
  private debitedNano: bigint | undefined;
  private waiters: ((debitedNano: bigint) => void)[] | undefined;
  /** A replayed draw answers again: its share goes back to the lease once. */
  private leaseFinished = false;

  constructor(
    private readonly owner: DrawOwner,
    readonly draw: DrawCall,
    readonly span: TraceSpan,
    private readonly lease: Lease,
    /** The share drawn: what the lease set aside for this answer. */
    private readonly shareNano: bigint,
  ) {}

  send(): void {
    this.owner.draws.send(this);
  }

  /** The batcher's answer to the first attempt. */
  answered(answer: DrawAnswer): void {
    this.landed(this.apply(answer));
  }

  /** The first attempt failed: retried as any settle is. */
  failed(error: unknown): void {
    const work = () => this.owner.draws.submit(this.draw, this.span).then((answer) => this.apply(answer));
    void this.owner.retry(this.draw.requestId, work, error, this.shareNano).then((debitedNano) => this.landed(debitedNano));
  }

  /** The amount on the ledger, once the draw lands (sent without waiting for the batcher's interval). */
  wait(): Promise<bigint> {
    this.owner.draws.hurry();
    if (this.debitedNano !== undefined) return Promise.resolve(this.debitedNano);
    return new Promise((resolve) => {
      this.waiters ??= [];
      this.waiters.push(resolve);
    });
  }

  private apply(answer: DrawAnswer): bigint {
    const { owner, draw, lease } = this;
    owner.journal?.landed(draw.requestId); // on the ledger: a local journal entry of it is not needed any more
    if (!answer.settled) owner.log.error({ reqId: draw.requestId, lease: lease.id }, "draw did not debit: unknown lease");
    if (!this.leaseFinished) owner.leases.finish(lease, this.shareNano, answer.debitedNano);
    this.leaseFinished = true;
    return answer.debitedNano;
  }

  private landed(debitedNano: bigint): void {
    this.debitedNano = debitedNano;
    this.owner.ended(this.draw.requestId);
    this.span.end(); // once landed (or queued for retry): the answer itself may have left before
    if (this.waiters) for (const resolve of this.waiters) resolve(debitedNano);
    this.waiters = undefined;
  }
}
