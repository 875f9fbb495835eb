// Recent health of each access path (provider + upstream model), as this data
// plane saw it: an exponentially weighted error rate and latency over the
// last ten or so calls (each call moves them 20%). The error rate also decays
// with time (halving every PATH_HEALTH_HALF_LIFE_MS, 30 s, without calls), so a path demoted for its
// errors gets traffic again after a cool-down and can prove itself healthy.
// Routing prefers healthy paths (docs/routing.md). Each path also has a
// circuit breaker (circuit-breaker.ts): an open circuit makes the path
// unhealthy here, and the attempt loop skips it.
import { CircuitBreakers, type CircuitSettings, type CircuitState, type CircuitView } from "./circuit-breaker";

const WEIGHT = 0.2;
const MIN_OBSERVATIONS = 5;
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
  circuit: CircuitState;
}

export class PathHealth {
  private readonly stats = new Map<string, Stats>();

  private readonly circuits: CircuitBreakers;

  constructor(
    private readonly settings: CircuitSettings & { errorHalfLifeMs: number },
    private readonly now: () => number = Date.now,
  ) {
    this.circuits = new CircuitBreakers(settings, now);
  }

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
    this.circuits.record(key, outcome.ok);
  }

  /** Whether a call may go to this path now (its circuit is closed, or half-open and this is the probe). */
  admit(key: string): boolean {
    return this.circuits.admit(key);
  }

  circuitViews(): CircuitView[] {
    return this.circuits.views();
  }

  view(key: string): PathHealthView {
    const current = this.stats.get(key);
    const circuit = this.circuits.state(key);
    if (!current) return { errorRate: 0, latencyMs: 0, healthy: true, circuit };
    const errorRate = this.decayed(current, this.now());
    const healthy = circuit !== "open" && (current.observations < MIN_OBSERVATIONS || errorRate < UNHEALTHY_ERROR_RATE);
    return { errorRate, latencyMs: current.latencyMs, healthy, circuit };
  }

  private decayed(stats: Stats, now: number): number {
    return stats.errorRate * 0.5 ** ((now - stats.updatedAtMs) / this.settings.errorHalfLifeMs);
  }
}
