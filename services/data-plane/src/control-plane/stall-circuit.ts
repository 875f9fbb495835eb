// The control plane can be reachable and still not answer: its database is
// paused, locked or failing over, and every call waits out its deadline. Once
// one call has run out its deadline, calls that admit a request (key checks,
// holds, leases) fail at once with 503 instead of each waiting the full
// deadline; one of them at a time, at most one per deadline's length, still
// goes through with the full deadline as the probe. Any call that comes back in time
// closes the circuit. Failing
// fast also keeps holds from piling up in the stalled database, to be placed
// (and left to expire) when it resumes. docs/resilience.md, "A stalled control plane".

/** What a call came to, as the circuit sees it. */
export type CallEnd = "answered" | "deadline" | "failed";

export class StallCircuit {
  private stalledSinceMs: number | undefined;
  private probeUnderWay = false;
  /** When the last probe (or the call that found the stall) ended. */
  private lastProbeEndMs = 0;
  /** Calls refused at once while stalled (cumulative, for metrics). */
  fastFailures = 0;

  constructor(
    /** The least time between two probes while stalled (the calls' deadline). */
    private readonly probeIntervalMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  get stalled(): boolean {
    return this.stalledSinceMs !== undefined;
  }

  /**
   * Whether an admission call may go now. While stalled, the one let through is the probe and must
   * report with `ended(..., true)`.
   */
  admit(): { go: boolean; probe: boolean } {
    if (this.stalledSinceMs === undefined) return { go: true, probe: false };
    if (this.probeUnderWay || this.now() - this.lastProbeEndMs < this.probeIntervalMs) {
      this.fastFailures++;
      return { go: false, probe: false };
    }
    this.probeUnderWay = true;
    return { go: true, probe: true };
  }

  /** Every call's end: an answer in time closes the circuit, a deadline run out opens it. */
  ended(end: CallEnd, probe = false): void {
    if (probe) {
      this.probeUnderWay = false;
      this.lastProbeEndMs = this.now();
    }
    if (end === "answered") this.stalledSinceMs = undefined;
    else if (end === "deadline" && this.stalledSinceMs === undefined) {
      this.stalledSinceMs = this.now();
      this.lastProbeEndMs = this.stalledSinceMs;
    }
  }
}
