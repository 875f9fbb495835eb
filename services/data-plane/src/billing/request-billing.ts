// One request's money: reserve before forwarding, then exactly one of settle
// (the actual cost) or release (nothing billable), keyed by the request id.
// Settle and release are idempotent at the control plane, so they are retried
// until they land; a settle that cannot land now is kept and retried in the
// background (the control plane accepts it after the hold's expiry too).
import type { FastifyBaseLogger } from "fastify";
import type { ControlPlaneClientWrapper, ReserveCall, SettleCall } from "../control-plane/control-plane-client";
import { GatewayError, insufficientCredits, invalidApiKey, spendCapExceeded } from "../errors";

const RETRY_DELAYS_MS = [50, 200, 1000];
const BACKGROUND_RETRY_MS = 5000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class RequestBilling {
  private readonly pending = new Map<string, () => Promise<unknown>>();
  /** Requests holding money: reserved, and neither settled nor released yet. */
  private readonly open = new Set<string>();
  private backgroundTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly controlPlane: ControlPlaneClientWrapper,
    private readonly log: FastifyBaseLogger,
  ) {}

  /** Places the hold and returns its amount, or throws the caller-facing refusal (402, 429, 401, 503). */
  async reserve(hold: ReserveCall): Promise<bigint> {
    this.open.add(hold.requestId); // before the call: a hold may exist even if the answer is lost
    let answer;
    try {
      answer = await this.controlPlane.reserve(hold);
    } catch (error) {
      this.open.delete(hold.requestId); // unreachable: the hold, if any, expires
      throw error;
    }
    if (answer.outcome !== "RESERVED") this.open.delete(hold.requestId);
    switch (answer.outcome) {
      case "RESERVED":
        return BigInt(answer.reservedNano);
      case "INSUFFICIENT_CREDITS":
        throw insufficientCredits();
      case "SPEND_CAP_EXCEEDED":
        throw spendCapExceeded(answer.retryAfterSeconds);
      case "UNKNOWN_PROJECT":
        throw invalidApiKey();
      default:
        throw new GatewayError(503, "service_unavailable", "control_plane_unavailable", "The control plane gave an unexpected answer.");
    }
  }

  /** Debits the actual cost. Returns the amount on the ledger for this request. */
  async settle(call: SettleCall): Promise<bigint> {
    const work = async () => {
      const answer = await this.controlPlane.settle(call);
      if (answer.outcome !== "SETTLED") this.log.error({ reqId: call.requestId, outcome: answer.outcome }, "settle did not debit");
      return BigInt(answer.debitedNano);
    };
    try {
      return await this.withRetries(work);
    } catch {
      this.keepTrying(call.requestId, work);
      return call.amountNano;
    } finally {
      this.open.delete(call.requestId);
    }
  }

  async release(requestId: string, projectId: string): Promise<void> {
    const work = () => this.controlPlane.release(requestId, projectId);
    try {
      await this.withRetries(work);
    } catch {
      this.keepTrying(requestId, work);
    } finally {
      this.open.delete(requestId);
    }
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
    clearInterval(this.backgroundTimer);
    this.backgroundTimer = undefined;
    await this.retryPending();
    while (this.pending.size > 0 && Date.now() < giveUpAt) {
      await sleep(Math.min(500, Math.max(0, giveUpAt - Date.now())));
      await this.retryPending();
    }
    if (this.pending.size > 0) this.log.error({ requestIds: [...this.pending.keys()] }, "settles/releases never reached the control plane; their holds will expire");
  }

  private async withRetries<T>(work: () => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await work();
      } catch (error) {
        const delay = RETRY_DELAYS_MS[attempt];
        if (delay === undefined) throw error;
        await sleep(delay);
      }
    }
  }

  private keepTrying(requestId: string, work: () => Promise<unknown>): void {
    this.log.warn({ reqId: requestId }, "control plane unreachable: settle/release queued for retry");
    this.pending.set(requestId, work);
    this.backgroundTimer ??= setInterval(() => void this.retryPending(), BACKGROUND_RETRY_MS);
  }

  private async retryPending(): Promise<void> {
    // Each independently: one that keeps failing must not hold back the others.
    await Promise.allSettled(
      [...this.pending].map(async ([requestId, work]) => {
        await work();
        this.pending.delete(requestId);
      }),
    );
    if (this.pending.size === 0 && this.backgroundTimer) {
      clearInterval(this.backgroundTimer);
      this.backgroundTimer = undefined;
    }
  }
}
