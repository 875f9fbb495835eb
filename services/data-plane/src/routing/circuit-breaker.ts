// One circuit breaker per access path (provider + upstream model), as this
// data plane saw it. Closed: calls go through. After `failureThreshold`
// consecutive failures it opens: the path is skipped for `cooldownMs`. Then it
// is half-open: one probe call is let through (another only if that probe has
// not reported within a further cool-down, so a probe lost to a client
// disconnect cannot wedge the path); the probe's success closes the circuit,
// its failure opens it again. Routing skips open paths (docs/resilience.md).
export type CircuitState = "closed" | "open" | "half_open";

export interface CircuitSettings {
  failureThreshold: number;
  cooldownMs: number;
}

interface Breaker {
  consecutiveFailures: number;
  /** When it last opened; undefined while closed. */
  openedAtMs: number | undefined;
  /** When the current half-open probe was let through. */
  probeAtMs: number | undefined;
  opens: number;
}

export interface CircuitView {
  path: string;
  state: CircuitState;
  consecutive_failures: number;
  /** Times this circuit opened since the process started. */
  opens: number;
  /** While open: milliseconds until a probe is let through. */
  retry_in_ms?: number;
}

export class CircuitBreakers {
  private readonly breakers = new Map<string, Breaker>();

  constructor(
    private readonly settings: CircuitSettings,
    private readonly now: () => number = Date.now,
  ) {}

  state(key: string): CircuitState {
    const breaker = this.breakers.get(key);
    if (breaker?.openedAtMs === undefined) return "closed";
    return this.now() - breaker.openedAtMs < this.settings.cooldownMs ? "open" : "half_open";
  }

  /** Whether a call may go to this path now; a half-open admission is the probe. */
  admit(key: string): boolean {
    const state = this.state(key);
    if (state === "closed") return true;
    if (state === "open") return false;
    const breaker = this.breakers.get(key)!;
    const now = this.now();
    if (breaker.probeAtMs !== undefined && now - breaker.probeAtMs < this.settings.cooldownMs) return false;
    breaker.probeAtMs = now;
    return true;
  }

  record(key: string, ok: boolean): void {
    const breaker = this.breakers.get(key) ?? { consecutiveFailures: 0, openedAtMs: undefined, probeAtMs: undefined, opens: 0 };
    this.breakers.set(key, breaker);
    if (ok) {
      breaker.consecutiveFailures = 0;
      breaker.openedAtMs = undefined;
      breaker.probeAtMs = undefined;
      return;
    }
    breaker.consecutiveFailures++;
    const probeFailed = breaker.openedAtMs !== undefined && breaker.probeAtMs !== undefined;
    if (probeFailed || (breaker.openedAtMs === undefined && breaker.consecutiveFailures >= this.settings.failureThreshold)) {
      breaker.openedAtMs = this.now();
      breaker.probeAtMs = undefined;
      breaker.opens++;
    }
  }

  /** Every path that has failed at least once, for operators (health detail, metrics). */
  views(): CircuitView[] {
    return [...this.breakers].map(([path, breaker]) => {
      const state = this.state(path);
      const view: CircuitView = { path, state, consecutive_failures: breaker.consecutiveFailures, opens: breaker.opens };
      if (state === "open") view.retry_in_ms = Math.max(0, breaker.openedAtMs! + this.settings.cooldownMs - this.now());
      return view;
    });
  }
}
