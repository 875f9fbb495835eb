// Affinity (docs/routing.md): a conversation's turns go first to the model and access path that
// answered its last turn, where the provider holds its prompt cache, unless that target can no longer
// serve it well; then the pin gives way, says why, and the next answer pins afresh. Pure: the ranked
// candidates and the pin in, the candidates in the order to try and what became of the pin out.
import type { AccessPath } from "../catalogue/catalogue-snapshot";
import type { Pin } from "./affinity-pins";
import type { PathHealthView } from "./path-health";
import type { Candidate } from "./select-candidates";
import type { ServiceBlock } from "./service-block";

/** Why a pin gave way: a metric label and the trace's word. */
export type BreakReason =
  | "unhealthy"
  | "circuit_open"
  | "no_longer_fits"
  | "excluded_by_service"
  | "model_changed"
  | "unavailable"
  | "balance"
  | "failed"
  | "key_group";

export interface AffinityTrace {
  /** new: no live pin; kept: the pinned target goes first; broken: the pin gave way (`reason`). */
  state: "new" | "kept" | "broken";
  reason?: BreakReason;
  /** What the gateway knows of why, in its own words (a route's exclusion reason). */
  detail?: string;
}

export interface PinnedRoute {
  candidates: Candidate[];
  affinity: AffinityTrace;
}

const broken = (candidates: Candidate[], reason: BreakReason, detail?: string): PinnedRoute => ({
  candidates,
  affinity: detail ? { state: "broken", reason, detail } : { state: "broken", reason },
});

/**
 * The candidates with the pinned model first and its pinned path first among its paths, when that
 * target is still one of them and healthy; else as ranked, and why the pin gave way.
 */
export function applyPin(
  candidates: Candidate[],
  excluded: readonly { model: string; why: string }[],
  pin: Pin | undefined,
  health: (path: AccessPath) => PathHealthView,
  service: ServiceBlock | undefined,
  concrete: boolean,
): PinnedRoute {
  if (!pin) return { candidates, affinity: { state: "new" } };
  const index = candidates.findIndex((candidate) => candidate.model.id === pin.model);
  const candidate = candidates[index];
  if (!candidate) {
    if (concrete) return broken(candidates, "model_changed");
    const why = excluded.find((entry) => entry.model === pin.model)?.why;
    if (why?.includes("service.")) return broken(candidates, "excluded_by_service", why);
    if (why) return broken(candidates, "no_longer_fits", why);
    return broken(candidates, Array.isArray(service?.route) ? "excluded_by_service" : "unavailable");
  }
  const path = candidate.paths.find((entry) => entry.provider === pin.provider && entry.upstreamModel === pin.upstreamModel);
  if (!path) return broken(candidates, service?.paths ? "excluded_by_service" : "unavailable");
  const view = health(path);
  if (view.circuit === "open") return broken(candidates, "circuit_open");
  if (!view.healthy) return broken(candidates, "unhealthy");
  const pinned: Candidate = { model: candidate.model, path, paths: [path, ...candidate.paths.filter((entry) => entry !== path)] };
  return { candidates: [pinned, ...candidates.filter((_, position) => position !== index)], affinity: { state: "kept" } };
}

/** The routing line's words for it: `affinity kept`, `affinity broken (circuit_open)`. */
export function affinityWords(affinity: AffinityTrace): string {
  return affinity.reason ? `affinity ${affinity.state} (${affinity.reason})` : `affinity ${affinity.state}`;
}
