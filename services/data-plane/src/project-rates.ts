// Requests per project per second on this replica: what makes a project
// "busy" enough for a budget lease (billing/budget-leases.ts) or for admission
// blocks (limits/admission-blocks.ts). Two counters per project, this second
// and the one before; projects quiet for two seconds are dropped by `prune`.

export interface ProjectRate {
  /** Requests counted within the current second, this one included. */
  thisSecond: number;
  /** Requests counted within the second before (0 if none, or if it was longer ago). */
  lastSecond: number;
}

export class ProjectRates {
  private readonly rates = new Map<string, ProjectRate & { second: number }>();

  /** Counts one request of the project at `nowMs` (any millisecond clock); answers its counts (the record itself: no allocation per request). */
  count(projectId: string, nowMs: number): Readonly<ProjectRate> {
    const second = Math.floor(nowMs / 1000);
    let rate = this.rates.get(projectId);
    if (!rate) {
      rate = { second, thisSecond: 0, lastSecond: 0 };
      this.rates.set(projectId, rate);
    } else if (rate.second !== second) {
      rate.lastSecond = rate.second === second - 1 ? rate.thisSecond : 0;
      rate.thisSecond = 0;
      rate.second = second;
    }
    rate.thisSecond++;
    return rate;
  }

  /** Forgets projects with no request in this second or the one before. */
  prune(nowMs: number): void {
    const second = Math.floor(nowMs / 1000);
    for (const [projectId, rate] of this.rates) if (rate.second < second - 1) this.rates.delete(projectId);
  }
}
