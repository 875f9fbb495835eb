// One circuit breaker per access path (provider + upstream model), as this
// data plane saw it. Closed: calls go through. After `failureThreshold`
// consecutive failures it opens: the path is skipped for `cooldownMs`. Then it
// is half-open: one probe call is let through (another only if that probe has
// not reported within a further cool-down, so a probe lost to a client
// disconnect cannot wedge the path); the probe's success closes the circuit,
// its failure opens it again. Routing skips open paths (docs/resilience.md).
// A failure may name its source (the project whose call failed): the circuit
// then opens only once its consecutive failures come from `minSources`
// sources, so one tenant's failing calls are not taken for a path that is
// down for everyone. A failure with no source is evidence about the path itself.
export type CircuitState = "closed" | "open" | "half_open";

export interface CircuitSettings {
  failureThreshold: number;
  cooldownMs: number;
  /** Distinct sources the consecutive failures must come from before the circuit opens (default 1). */
  minSources?: number;
}

interface Breaker {
  consecutiveFailures: number;
  /** When it last opened; undefined while closed. */
  openedAtMs: number | undefined;
  /** When the current half-open probe was let through. */
  probeAtMs: number | undefined;
  opens: number;
  /** Sources of the current run of consecutive failures; "*" for a failure about the path itself. */
  failingSources: Set<string>;
}

const PATH_ITSELF = "*";

export interface CircuitView {
  path: string;
  state: CircuitState;
  consecutive_failures: number;
  /** Times this circuit opened since the process started. */
  opens: number;
  /** While open: milliseconds until a probe is let through. */
  retry_in_ms?: number;
  /** Projects whose own circuit on this path is not closed (set by PathHealth). */
  projects_open?: number;
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

  /** One call's outcome; `source` names whose call it was when the failure may be theirs alone. */
  record(key: string, ok: boolean, source?: string): void {
    const breaker = this.breakers.get(key) ?? {
      consecutiveFailures: 0,
      openedAtMs: undefined,
      probeAtMs: undefined,
      opens: 0,
      failingSources: new Set<string>(),
    };
    this.breakers.set(key, breaker);
    if (ok) {
      breaker.consecutiveFailures = 0;
      breaker.failingSources.clear();
      breaker.openedAtMs = undefined;
      breaker.probeAtMs = undefined;
      return;
    }
    breaker.consecutiveFailures++;
    breaker.failingSources.add(source ?? PATH_ITSELF);
    const probeFailed = breaker.openedAtMs !== undefined && breaker.probeAtMs !== undefined;
    if (probeFailed || (breaker.openedAtMs === undefined && this.enoughEvidence(breaker))) {
      breaker.openedAtMs = this.now();
      breaker.probeAtMs = undefined;
      breaker.opens++;
    }
  }

  /** Drops a breaker, as a success would close it: for per-project breakers, kept only while they remember failures. */
  forget(key: string): void {
    this.breakers.delete(key);
  }

  private enoughEvidence(breaker: Breaker): boolean {
    if (breaker.consecutiveFailures < this.settings.failureThreshold) return false;
    return breaker.failingSources.has(PATH_ITSELF) || breaker.failingSources.size >= (this.settings.minSources ?? 1);
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
