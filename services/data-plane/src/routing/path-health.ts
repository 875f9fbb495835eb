// Recent health of each access path (provider + upstream model), as this data
// plane saw it: an exponentially weighted error rate and latency over the
// last ten or so calls (each call moves them 20%). The error rate also decays
// with time (halving every 30 s without calls), so a path demoted for its
// errors gets traffic again after a cool-down and can prove itself healthy.
// Routing prefers healthy paths (docs/routing.md).
const WEIGHT = 0.2;
const MIN_OBSERVATIONS = 5;
const HALF_LIFE_MS = 30_000;
export const UNHEALTHY_ERROR_RATE = 0.5;

interface Stats {
  errorRate: number;
  latencyMs: number;
  observations: number;
  updatedAtMs: number;
}

export interface PathHealthView {
  errorRate: number;
  latencyMs: number;
  healthy: boolean;
}

export class PathHealth {
  private readonly stats = new Map<string, Stats>();

  constructor(private readonly now: () => number = Date.now) {}

  static key(provider: string, upstreamModel: string): string {
    return `${provider}/${upstreamModel}`;
  }

  record(key: string, outcome: { ok: boolean; latencyMs: number }): void {
    const now = this.now();
    const current = this.stats.get(key) ?? { errorRate: 0, latencyMs: outcome.latencyMs, observations: 0, updatedAtMs: now };
    current.errorRate = this.decayed(current, now) + WEIGHT * ((outcome.ok ? 0 : 1) - this.decayed(current, now));
    current.latencyMs += WEIGHT * (outcome.latencyMs - current.latencyMs);
    current.observations++;
    current.updatedAtMs = now;
    this.stats.set(key, current);
  }

  view(key: string): PathHealthView {
    const current = this.stats.get(key);
    if (!current) return { errorRate: 0, latencyMs: 0, healthy: true };
    const errorRate = this.decayed(current, this.now());
    return { errorRate, latencyMs: current.latencyMs, healthy: current.observations < MIN_OBSERVATIONS || errorRate < UNHEALTHY_ERROR_RATE };
  }

  private decayed(stats: Stats, now: number): number {
    return stats.errorRate * 0.5 ** ((now - stats.updatedAtMs) / HALF_LIFE_MS);
  }
}
