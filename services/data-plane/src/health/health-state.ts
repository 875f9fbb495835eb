// A data plane's state, computed once for GET /health and for the reports to the control plane
// (state-reporter.ts): whether it can serve, its link to the control plane, rate limiting, circuits,
// pools of provider keys (fingerprints only: a key never leaves the process but upstream).
// The public GET /health says only whether it serves and why not; the details (access paths, the
// catalogue revision) are for operators: GET /health on the metrics port, and the reports.
import type { CatalogueSnapshot } from "../catalogue/catalogue-snapshot";
import type { KeyPoolView } from "../providers/key-pool/key-pool";
import type { CircuitView } from "../routing/circuit-breaker";

/** What readiness is judged from. */
export interface HealthSources {
  draining(): boolean;
  catalogue(): CatalogueSnapshot | undefined;
  controlPlane: { readonly connected: boolean; readonly lastContactMs: number; readonly stall: { readonly stalled: boolean } };
  /** How long the data plane serves from cached state once the control plane is unreachable. */
  controlPlaneGraceMs: number;
  rateLimiter: { readonly mode: string };
  /** The draw journal: "redis", "file (...)" while its circuit is open ("bypassed (...)" with DRAW_JOURNAL_DIR=off), "none" without Redis. */
  drawJournal: { readonly mode: string };
  circuitViews(): CircuitView[];
  /** Every pool of provider keys, a pool of one included. */
  keyPools(): KeyPoolView[];
}

export interface HealthDetail {
  control_plane: "connected" | "reconnecting";
  /** "stalled": a call ran out its deadline; requests needing a hold or a key check get 503 at once. */
  control_plane_calls: "in_time" | "stalled";
  catalogue_revision: string | undefined;
  rate_limit: string;
  /** "redis"; "file (...)": Redis failed or was late, leased debits go to the local file until a probe sees it answer ("bypassed (...)": no file, answers wait for their draws); "none": no Redis. */
  draw_journal: string;
  /** Access paths whose circuit is not closed (open: skipped; half_open: one probe allowed), for everyone or for some projects (projects_open). */
  circuits: CircuitView[];
  /** Each provider variable's keys by fingerprint: group, weight, limits, state (active, cooling, refused) and last minute's use. */
  key_pools: KeyPoolView[];
}

export function unavailableReason(sources: HealthSources): string | undefined {
  if (sources.draining()) return "draining";
  if (!sources.catalogue()) return "no catalogue received from the control plane yet";
  const silentMs = Date.now() - sources.controlPlane.lastContactMs;
  if (!sources.controlPlane.connected && silentMs > sources.controlPlaneGraceMs) return "control plane unreachable beyond the grace period";
  return undefined;
}

export function healthDetail(sources: HealthSources): HealthDetail {
  return {
    control_plane: sources.controlPlane.connected ? "connected" : "reconnecting",
    control_plane_calls: sources.controlPlane.stall.stalled ? "stalled" : "in_time",
    catalogue_revision: sources.catalogue()?.revision,
    rate_limit: sources.rateLimiter.mode,
    draw_journal: sources.drawJournal.mode,
    circuits: sources.circuitViews().filter((view) => view.state !== "closed" || (view.projects_open ?? 0) > 0),
    key_pools: sources.keyPools(),
  };
}

/** GET /health's answer: status and reason for anyone; with `detail` on the metrics port, for operators. */
export function healthAnswer(sources: HealthSources, withDetail: boolean): { status: number; body: Record<string, unknown> } {
  const reason = unavailableReason(sources);
  const detail = withDetail ? { detail: healthDetail(sources) } : {};
  return reason ? { status: 503, body: { status: "unavailable", reason, ...detail } } : { status: 200, body: { status: "ok", ...detail } };
}
