// Recent health of each access path (provider + upstream model), as this data
// plane saw it: an exponentially weighted error rate and latency over the
// last few dozen calls. Routing demotes unhealthy paths (docs/routing.md).
const WEIGHT = 0.1; // each outcome moves the averages 10%: about the last 20-30 calls count
const MIN_OBSERVATIONS = 5;
export const UNHEALTHY_ERROR_RATE = 0.5;

interface Stats {
  errorRate: number;
  latencyMs: number;
  observations: number;
}

export interface PathHealthView {
  errorRate: number;
  latencyMs: number;
  healthy: boolean;
}

export class PathHealth {
  private readonly stats = new Map<string, Stats>();

  static key(provider: string, upstreamModel: string): string {
    return `${provider}/${upstreamModel}`;
  }

  record(key: string, outcome: { ok: boolean; latencyMs: number }): void {
    const current = this.stats.get(key);
    if (!current) {
      this.stats.set(key, { errorRate: outcome.ok ? 0 : 1, latencyMs: outcome.latencyMs, observations: 1 });
      return;
    }
    current.errorRate += WEIGHT * ((outcome.ok ? 0 : 1) - current.errorRate);
    current.latencyMs += WEIGHT * (outcome.latencyMs - current.latencyMs);
    current.observations++;
  }

  view(key: string): PathHealthView {
    const current = this.stats.get(key);
    if (!current) return { errorRate: 0, latencyMs: 0, healthy: true };
    return {
      errorRate: current.errorRate,
      latencyMs: current.latencyMs,
      healthy: current.observations < MIN_OBSERVATIONS || current.errorRate < UNHEALTHY_ERROR_RATE,
    };
  }
}
