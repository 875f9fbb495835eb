// Recent health of each access path (provider + upstream model), as this data
// plane saw it: an exponentially weighted error rate and latency over the
// last ten or so calls (each call moves them 20%). The error rate also decays
// with time (halving every PATH_HEALTH_HALF_LIFE_MS, 30 s, without calls), so a path demoted for its
// errors gets traffic again after a cool-down and can prove itself healthy.
// Routing prefers healthy paths (docs/routing.md). Each path also has a
// circuit breaker (circuit-breaker.ts): an open circuit makes the path
// unhealthy here, and the attempt loop skips it. A project's own failures
// open a circuit for that project first; the path's shared circuit opens
// once failures come from `minProjects` projects, or are about the path
// itself (its key refused, its host unreachable): one tenant's failing calls
// do not close a path to everyone (docs/resilience.md).
import { CircuitBreakers, type CircuitSettings, type CircuitState, type CircuitView } from "./circuit-breaker";

const WEIGHT = 0.2;
const PROJECT_SEPARATOR = "\n";
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

  /** One per path, shared by every project. */
  private readonly circuits: CircuitBreakers;

  /** One per path and project, kept while that project's calls there are failing. */
  private readonly projectCircuits: CircuitBreakers;

  constructor(
    private readonly settings: CircuitSettings & { errorHalfLifeMs: number; minProjects?: number },
    private readonly now: () => number = Date.now,
  ) {
    this.circuits = new CircuitBreakers({ ...settings, minSources: settings.minProjects ?? 1 }, now);
    this.projectCircuits = new CircuitBreakers({ ...settings, minSources: 1 }, now);
  }

  static key(provider: string, upstreamModel: string): string {
    return `${provider}/${upstreamModel}`;
  }

  /**
   * One call's outcome. `project` names whose call failed when the failure may be that project's
   * alone (an upstream 5xx or timeout on its request); without it the failure is about the path.
   */
  record(key: string, outcome: { ok: boolean; latencyMs: number; project?: string }): void {
    const now = this.now();
    const current = this.stats.get(key) ?? { errorRate: 0, latencyMs: outcome.latencyMs, observations: 0, updatedAtMs: now };
    current.errorRate = this.decayed(current, now) + WEIGHT * ((outcome.ok ? 0 : 1) - this.decayed(current, now));
    current.latencyMs += WEIGHT * (outcome.latencyMs - current.latencyMs);
    current.observations++;
    current.updatedAtMs = now;
    this.stats.set(key, current);
    this.circuits.record(key, outcome.ok, outcome.project);
    if (outcome.project === undefined) return;
    const projectKey = PathHealth.projectKey(key, outcome.project);
    // A success closes the project's circuit, and a closed one is not kept: no entry made per call.
    if (outcome.ok) this.projectCircuits.forget(projectKey);
    else this.projectCircuits.record(projectKey, false);
  }

  /**
   * Whether a call of `project` may go to this path now: the project's circuit and the path's are
   * closed, or half-open and this call is their probe.
   */
  admit(key: string, project?: string): boolean {
    if (project === undefined) return this.circuits.admit(key);
    const projectKey = PathHealth.projectKey(key, project);
    // Ask both without using up a half-open probe on one that the other refuses.
    if (this.projectCircuits.state(projectKey) === "open" || this.circuits.state(key) === "open") return false;
    return this.projectCircuits.admit(projectKey) && this.circuits.admit(key);
  }

  /** The shared circuits, each with how many projects have their own circuit on that path not closed. */
  circuitViews(): CircuitView[] {
    const projectsOpen = new Map<string, number>();
    for (const view of this.projectCircuits.views()) {
      if (view.state === "closed") continue;
      const path = view.path.slice(0, view.path.indexOf(PROJECT_SEPARATOR));
      projectsOpen.set(path, (projectsOpen.get(path) ?? 0) + 1);
    }
    return this.circuits.views().map((view) => ({ ...view, projects_open: projectsOpen.get(view.path) ?? 0 }));
  }

  private static projectKey(key: string, project: string): string {
    return `${key}${PROJECT_SEPARATOR}${project}`;
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
