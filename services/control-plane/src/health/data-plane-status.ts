// A data plane's status in words, from its latest report: silent (no report for 3 intervals), draining,
// unavailable (its /health answers 503), degraded (it serves, with something wrong), or ok.
import type { StoredReport } from "./data-plane-reports";

export const DATA_PLANE_STATUSES = ["ok", "degraded", "unavailable", "draining", "silent"] as const;
export type DataPlaneStatus = (typeof DATA_PLANE_STATUSES)[number];

/** Reports missed before a data plane is called silent. */
export const SILENT_AFTER_INTERVALS = 3;

export function dataPlaneStatus(report: StoredReport): { status: DataPlaneStatus; reasons: string[] } {
  if (report.ageMs > SILENT_AFTER_INTERVALS * report.reportIntervalMs) {
    const seconds = Math.floor(report.ageMs / 1000);
    return { status: "silent", reasons: [`no report for ${seconds} s (one is sent every ${report.reportIntervalMs / 1000} s)`] };
  }
  if (report.draining) return { status: "draining", reasons: ["shutting down: finishing its requests"] };
  if (report.unavailableReason) return { status: "unavailable", reasons: [report.unavailableReason] };
  const reasons: string[] = [];
  if (report.controlPlaneLink !== "connected") reasons.push("control-plane link reconnecting");
  if (report.controlPlaneCalls === "stalled") reasons.push("calls to the control plane stalled");
  // "local" alone is a deployment without Redis; the fallback is Redis lost.
  if (report.rateLimit.startsWith("local fallback")) reasons.push("rate limiting is local: Redis unreachable");
  for (const circuit of report.circuits) {
    if (circuit.state === "open") reasons.push(`circuit open: ${circuit.path}`);
    else if (circuit.state === "half_open") reasons.push(`circuit half-open: ${circuit.path}`);
    else if (circuit.projects_open > 0) reasons.push(`circuit open for ${circuit.projects_open} project(s): ${circuit.path}`);
  }
  // A key its upstream refused (401, 403) is out of its pool until retried: the operator's to replace. A resting key (429) is load, not a fault.
  for (const pool of report.keyPools)
    for (const key of pool.keys) if (key.state === "refused") reasons.push(`provider key refused: ${pool.pool} ${key.fingerprint}`);
  return { status: reasons.length > 0 ? "degraded" : "ok", reasons };
}
