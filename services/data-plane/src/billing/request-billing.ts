// One request's money (docs/money.md): reserve before forwarding, then exactly
// one of settle (the actual cost) or release (nothing billable), keyed by the
// request id. Both are idempotent at the control plane, so they are retried
// until they land, in the background when not at once. A busy project's request
// takes its worst case from a budget lease instead (budget-leases.ts): its
// settle is a draw from the lease (batched), its release stays in memory.
// Each step is a span under the request's (`reserve` or `lease`, `settle` or
// `draw`, `release`) when tracing is on; the amounts are never touched by it.
import { encodeDrawEntry } from "@gateway/proto";
import { NO_SPAN, type TraceSpan } from "@gateway/proto/tracing";
import type { ControlPlaneClientWrapper, DrawCall, ReserveCall, SettleCall } from "../control-plane/control-plane-client";
import { GatewayError, isOutage } from "../errors";
import type { BillingLog } from "./billing-log";
import { BudgetLeases, type Lease, type LeaseSettings } from "./budget-leases";
import { DrawBatcher } from "./draw-batcher";
import { DrawInFlight, type DrawOwner } from "./draw-in-flight";
import type { DrawJournal, DrawJournalStats } from "./draw-journal";
import { HoldRenewal } from "./hold-renewal";
import { refusalOf } from "./reserve-refusal";

/** The control-plane calls billing makes. */
export type BillingCalls = Pick<ControlPlaneClientWrapper, "reserve" | "checkSpend" | "settle" | "release" | "lease" | "draw" | "renew">;

const RETRY_DELAYS_MS = [50, 200, 1000];
const BACKGROUND_RETRY_MS = 5000;

/** A request waits this long at most for a lease ask under way, then reserves on its own. */
const LEASE_WAIT_MS = 250;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function waitAtMost(promise: Promise<void>, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    void promise.then(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

export class RequestBilling {
  private readonly pending = new Map<string, () => Promise<unknown>>();
  /** Pending work whose retry is under way now. */
  private readonly retrying = new Set<string>();
  /** Requests holding money: reserved, and neither settled nor released yet. */
  private readonly open = new Set<string>();
  /** Requests whose worst case came out of a lease, and how much. */
  private readonly leased = new Map<string, { lease: Lease; needNano: bigint; keyId: string | undefined }>();
  /** Draws of answered requests not landed yet (queued or in flight; a failed one goes to pending). */
  private drawsUnderWay = 0;
  /** Lease releases under way (flush waits for them). */
  private readonly releasing = new Set<Promise<void>>();
  private backgroundTimer: NodeJS.Timeout | undefined;
  readonly leases: BudgetLeases;
  private readonly draws: DrawBatcher;
  private readonly drawOwner: DrawOwner;
  /** Keeps the holds and leases of running requests from expiring under them. */
  readonly renewal: HoldRenewal;

  constructor(
    private readonly controlPlane: BillingCalls,
    private readonly log: BillingLog,
    leaseSettings: LeaseSettings & { replicaId: string } = {
      minRequestsPerSecond: 0,
      requestsPerLease: 0,
      maxAgeMs: 0,
      idleMs: 0,
      drawIntervalMs: 0,
      replicaId: "",
    },
    /** Where an answered leased debit is kept before its answer leaves (draw-journal.ts); none: the answer does not wait for it. */
    private readonly journal?: DrawJournal,
  ) {
    this.leases = new BudgetLeases(controlPlane, leaseSettings, leaseSettings.replicaId, (lease, keepNano) =>
      this.giveBackLease(lease, keepNano),
    );
    this.draws = new DrawBatcher(controlPlane, leaseSettings.drawIntervalMs);
    this.drawOwner = {
      draws: this.draws,
      journal,
      leases: this.leases,
      log,
      retry: (requestId, work, error, fallbackNano) =>
        this.withRetries(work, error).catch((failure: unknown) => {
          // Its share stays set aside until the draw lands, so the lease is not released before.
          this.keepTrying(requestId, work, failure);
          return fallbackNano;
        }),
      ended: (requestId) => {
        this.drawsUnderWay--;
        this.open.delete(requestId);
      },
    };
    this.renewal = new HoldRenewal(controlPlane, log);
    this.leases.onGranted = (lease, ttlSeconds) =>
      this.renewal.track(lease.id, lease.projectId, ttlSeconds, (active, sentAt) => {
        // Renewed: the control plane holds it half a TTL more at least (as when granted); closed: answers wait for their draws.
        if (!active) lease.certainUntil = 0;
        else if (lease.certainUntil > 0) lease.certainUntil = Math.max(lease.certainUntil, sentAt + (ttlSeconds * 1000) / 2);
      });
  }

  /** Places the hold and returns its amount, or throws the caller-facing refusal (402, 429, 401, 503). `parent`: the request's span. */
  reserve(hold: ReserveCall & { keyMoneyLimits?: boolean }, parent: TraceSpan = NO_SPAN): Promise<bigint> {
    return parent === NO_SPAN ? this.reserveUnder(hold, NO_SPAN) : this.tracedReserve(hold, parent);
  }

  private async tracedReserve(hold: ReserveCall & { keyMoneyLimits?: boolean }, parent: TraceSpan): Promise<bigint> {
    const span = parent.child("reserve", undefined, "client");
    try {
      return await this.reserveUnder(hold, span);
    } catch (error) {
      span.fail(error instanceof GatewayError ? error.kind : "internal_error");
      throw error;
    } finally {
      span.end();
    }
  }

  private async reserveUnder(hold: ReserveCall & { keyMoneyLimits?: boolean }, span: TraceSpan): Promise<bigint> {
    this.open.add(hold.requestId); // before any call: a hold may exist even if the answer is lost
    // A key with its own budget or daily cap is reserved request by request: only the control plane counts its money.
    let lease = hold.keyMoneyLimits ? undefined : this.leases.take(hold.projectId, hold.amountNano, span);
    const asking = lease || hold.keyMoneyLimits ? undefined : this.leases.askUnderWay(hold.projectId);
    if (asking) {
      // A burst of a busy project: one Lease call answers for all of its requests. Not for long: a
      // control plane that is slow to lease is slow to reserve too, and a request must not wait twice.
      await waitAtMost(asking, LEASE_WAIT_MS);
      lease = this.leases.takeAfterAsk(hold.projectId, hold.amountNano);
    }
    if (lease) {
      this.leased.set(hold.requestId, { lease, needNano: hold.amountNano, keyId: hold.keyId });
      span.rename("lease");
      span.set("gateway.lease_id", lease.id);
      return hold.amountNano;
    }
    let answer: Awaited<ReturnType<ControlPlaneClientWrapper["reserve"]>>;
    try {
      const { keyMoneyLimits: _, ...call } = hold;
      answer = await this.controlPlane.reserve(call, span);
    } catch (error) {
      this.open.delete(hold.requestId); // unreachable: the hold, if any, expires
      throw error;
    }
    span.set("gateway.money.outcome", answer.outcome);
    const refusal = refusalOf(answer);
    if (refusal) {
      this.open.delete(hold.requestId);
      throw refusal;
    }
    this.renewal.track(hold.requestId, hold.projectId, answer.ttlSeconds);
    return BigInt(answer.reservedNano);
  }

  /**
   * Throws what a reserve for this project and key would throw now (402 without balance or budget,
   * 429 at a daily cap, 401, 503), placing no hold: for a free call that the paid call's refusals
   * apply to (POST /v1/messages/count_tokens). The control plane runs the Reserve's own checks.
   */
  async checkSpend(projectId: string, keyId: string, parent: TraceSpan = NO_SPAN): Promise<void> {
    const span = parent.child("check_spend", undefined, "client");
    try {
      const answer = await this.controlPlane.checkSpend(projectId, keyId, span);
      span.set("gateway.money.outcome", answer.outcome);
      const refusal = refusalOf(answer);
      if (refusal) throw refusal;
    } catch (error) {
      span.fail(error instanceof GatewayError ? error.kind : "internal_error");
      throw error;
    } finally {
      span.end();
    }
  }

  /** Debits the actual cost. Returns the amount on the ledger for this request. `parent`: the request's span. */
  async settle(call: SettleCall, parent: TraceSpan = NO_SPAN): Promise<bigint> {
    const leased = this.leased.get(call.requestId);
    if (leased) return this.draw(call, leased, parent.child("draw", { "gateway.lease_id": leased.lease.id }));
    const span = parent.child("settle", undefined, "client");
    const work = async () => {
      const answer = await this.controlPlane.settle(call, span);
      if (answer.outcome !== "SETTLED") this.log.error({ reqId: call.requestId, outcome: answer.outcome }, "settle did not debit");
      span.set("gateway.money.outcome", answer.outcome);
      return BigInt(answer.debitedNano);
    };
    try {
      return await this.withRetries(work);
    } catch (error) {
      this.keepTrying(call.requestId, work, error);
      span.set("gateway.money.queued", true); // retried in the background, outside the span
      return call.amountNano;
    } finally {
      this.open.delete(call.requestId);
      this.renewal.forget(call.requestId);
      span.end();
    }
  }

  async release(requestId: string, projectId: string, parent: TraceSpan = NO_SPAN): Promise<void> {
    const span = parent.child("release", undefined, "client");
    const leased = this.leased.get(requestId);
    if (leased) {
      // Nothing was sent anywhere for it: its share is the lease's again.
      this.leased.delete(requestId);
      this.open.delete(requestId);
      this.leases.finish(leased.lease, leased.needNano, 0n);
      span.set("gateway.lease_id", leased.lease.id);
      span.end();
      return;
    }
    const work = () => this.controlPlane.release(requestId, projectId, 0n, span);
    try {
      await this.withRetries(work);
    } catch (error) {
      this.keepTrying(requestId, work, error);
      span.set("gateway.money.queued", true);
    } finally {
      this.open.delete(requestId);
      this.renewal.forget(requestId);
      span.end();
    }
  }

  /**
   * A request under a lease: its debit, min(cost, share), drawn from the lease. While the lease is
   * certainly active the draw debits exactly that, so the answer does not wait for it (once the draw
   * journal has it); after half the hold TTL the lease may have expired, and the answer waits
   * (docs/money.md, "Answers do not wait for their draw"). An answer that waits for its draw has it
   * sent at once rather than at the batcher's next interval.
   */
  private draw(
    call: SettleCall,
    { lease, needNano, keyId }: { lease: Lease; needNano: bigint; keyId: string | undefined },
    span: TraceSpan,
  ): Promise<bigint> {
    this.leased.delete(call.requestId);
    const debitNano = call.amountNano <= 0n ? 0n : call.amountNano < needNano ? call.amountNano : needNano;
    this.leases.shrink(lease, needNano, debitNano);
    this.drawsUnderWay++;
    const drawCall: DrawCall = { ...call, leaseId: lease.id, holdNano: debitNano, ...(keyId ? { keyId } : {}) };
    if (lease.drawEntries) drawCall.entry = encodeDrawEntry(drawCall); // the journal's and the Draw's bytes
    const draw = new DrawInFlight(this.drawOwner, drawCall, span, lease, debitNano);
    draw.send();
    if (performance.now() >= lease.certainUntil) return draw.wait();
    if (!this.journal) return Promise.resolve(debitNano);
    // Kept outside this process before the answer leaves, so a SIGKILL cannot lose it; if it cannot
    // be kept (Redis away and the local file unwritable or off), the answer waits for the draw itself.
    return this.journal.append(drawCall).then((kept) => (kept ? debitNano : draw.wait()));
  }

  /**
   * At start: the draws a predecessor on the journal's local directory answered while Redis was away
   * (it was killed before all of them landed) are sent like any draw, retried until they land. One
   * that had landed is a replay and debits nothing again (idempotent by request id); one whose lease
   * expired meanwhile debits as a late draw.
   */
  replayRecovered(): number {
    const draws = this.journal?.takeRecovered() ?? [];
    for (const draw of draws) {
      this.drawsUnderWay++;
      const work = async () => {
        const answer = await this.draws.submit(draw);
        this.journal?.landed(draw.requestId);
        return answer.debitedNano;
      };
      void this.withRetries(work)
        .catch((error: unknown) => this.keepTrying(draw.requestId, work, error))
        .finally(() => this.drawsUnderWay--);
    }
    return draws.length;
  }

  /**
   * Gives a retired lease's money back. Whole (`keepNano` 0): retried in the background until it
   * lands (or the lease expires). Reduced to `keepNano`: a few tries; if none lands, the whole
   * release after the lease's last request gives it back.
   */
  private giveBackLease(lease: Lease, keepNano: bigint): void {
    if (keepNano === 0n) this.renewal.forget(lease.id); // its last request is done
    const work = () => this.controlPlane.release(lease.id, lease.projectId, keepNano);
    const done = this.withRetries(work).then(
      (answer) => {
        if (keepNano === 0n) this.journal?.forget(lease.id); // its draws all landed before its release
        // A lease this replica still draws from was closed whole: it expired, or the control plane
        // predates reduces and ignored keep_nano (docs/deploy.md, "Upgrade order").
        if (keepNano > 0n && answer.outcome === "RELEASED") {
          // Their debits may now be clamped (late draws): the answers still to come wait for theirs.
          lease.certainUntil = 0;
          this.log.warn({ leaseId: lease.id }, "a lease reduce released the lease whole: its requests in flight draw as late debits");
        }
      },
      (error: unknown) => (keepNano > 0n ? undefined : this.keepTrying(lease.id, work, error)),
    );
    this.releasing.add(done); // shutdown waits for it
    void done.finally(() => this.releasing.delete(done));
  }

  /** Draws of requests already answered that have not landed yet (and are not pending a retry). */
  get drawsUnderWayCount(): number {
    return this.drawsUnderWay;
  }

  /** Draw journal appends (metrics); undefined without a journal. */
  get journalStats(): DrawJournalStats | undefined {
    return this.journal?.stats;
  }

  /** The journal's circuit is open: leased answers wait for their draws (metrics); false without a journal. */
  get journalCircuitOpen(): boolean {
    return this.journal?.circuit.open ?? false;
  }

  /** Requests whose settle or release has not reached the control plane yet. */
  get pendingCount(): number {
    return this.pending.size;
  }

  /**
   * On shutdown: waits for requests still holding money to settle or release
   * (a cut stream settles after its disconnect drain), then retries everything
   * pending until it lands. Both within `deadlineMs`.
   */
  async flush(deadlineMs: number): Promise<void> {
    const giveUpAt = Date.now() + deadlineMs;
    while (this.open.size > 0 && Date.now() < giveUpAt) await sleep(50);
    this.leases.close();
    await this.leases.asked(); // a lease granted now goes straight back
    await Promise.allSettled([...this.releasing]);
    clearInterval(this.backgroundTimer);
    this.backgroundTimer = undefined;
    await this.retryPending();
    // A draw landing here may end its lease: that release is awaited too.
    await Promise.allSettled([...this.releasing]);
    while (this.pending.size > 0 && Date.now() < giveUpAt) {
      await sleep(Math.min(500, Math.max(0, giveUpAt - Date.now())));
      await this.retryPending();
      await Promise.allSettled([...this.releasing]);
    }
    this.renewal.stop();
    if (this.pending.size > 0)
      this.log.error({ requestIds: [...this.pending.keys()] }, "settles/releases never reached the control plane; their holds will expire");
  }

  /**
   * Retries an outage a few times at once; a failure the control plane answered with goes to the background retry straight away.
   * @param failedWith a first attempt, made elsewhere, failed with this: the retries follow it.
   */
  private async withRetries<T>(work: () => Promise<T>, failedWith?: unknown): Promise<T> {
    let error = failedWith;
    for (let attempt = failedWith === undefined ? -1 : 0; ; attempt++) {
      if (attempt >= 0) {
        const delay = isOutage(error) ? RETRY_DELAYS_MS[attempt] : undefined;
        if (delay === undefined) throw error;
        await sleep(delay);
      }
      try {
        return await work();
      } catch (caught) {
        error = caught;
      }
    }
  }

  private keepTrying(requestId: string, work: () => Promise<unknown>, error: unknown): void {
    if (!isOutage(error)) this.log.error({ reqId: requestId, err: error }, "control plane failed a settle/release: queued for retry");
    else this.log.warn({ reqId: requestId }, "control plane unreachable: settle/release queued for retry");
    this.pending.set(requestId, work);
    this.backgroundTimer ??= setInterval(() => void this.retryPending(), BACKGROUND_RETRY_MS);
  }

  private async retryPending(): Promise<void> {
    // Each independently: one that keeps failing must not hold back the others. One still
    // running from the previous round (a slow control plane) is not sent a second time.
    await Promise.allSettled(
      [...this.pending]
        .filter(([requestId]) => !this.retrying.has(requestId))
        .map(async ([requestId, work]) => {
          this.retrying.add(requestId);
          try {
            await work();
            this.pending.delete(requestId);
          } finally {
            this.retrying.delete(requestId);
          }
        }),
    );
    if (this.pending.size === 0 && this.backgroundTimer) {
      clearInterval(this.backgroundTimer);
      this.backgroundTimer = undefined;
    }
  }
}
