// JSON shapes of GET /admin/health and GET /admin/audit-log (admin-schemas.ts mirrors them field for field).
import type { AuditEntry } from "../changes/audit-log";
import type { ControlPlaneStateReading } from "../health/control-plane-state";
import type { StoredReport } from "../health/data-plane-reports";
import { dataPlaneStatus } from "../health/data-plane-status";
import { money } from "./presenters";

export function presentControlPlane(state: ControlPlaneStateReading) {
  return {
    replica_id: state.replicaId,
    version: state.version,
    started_at: state.startedAt.toISOString(),
    uptime_seconds: state.uptimeSeconds,
    database: { reachable: state.database.reachable, round_trip_ms: state.database.roundTripMs, error: state.database.error },
    catalogue_revision: state.catalogueRevision,
    subscribed_data_planes: state.subscribed.map((subscriber) => ({
      replica_id: subscriber.replicaId,
      since: subscriber.since.toISOString(),
    })),
  };
}

export function presentDataPlane(report: StoredReport) {
  const { status, reasons } = dataPlaneStatus(report);
  return {
    replica_id: report.replicaId,
    status,
    reasons,
    version: report.version,
    started_at: report.startedAt.toISOString(),
    control_plane_replica: report.controlPlaneReplica,
    control_plane_link: report.controlPlaneLink,
    control_plane_calls: report.controlPlaneCalls,
    rate_limit: report.rateLimit,
    catalogue_revision: report.catalogueRevision,
    circuits: report.circuits,
    key_pools: report.keyPools,
    draining: report.draining,
    unavailable_reason: report.unavailableReason,
    report_interval_ms: report.reportIntervalMs,
    reported_at: report.reportedAt.toISOString(),
    age_ms: report.ageMs,
  };
}

export function presentAuditEvent(entry: AuditEntry) {
  return {
    id: entry.id.toString(),
    at: entry.createdAt.toISOString(),
    kind: entry.kind,
    actor: entry.actor,
    subject: {
      project_id: entry.payload.projectId ?? null,
      key_id: entry.payload.keyId ?? null,
      replaces_key_id: entry.payload.replaces ?? null,
      catalogue_revision: entry.payload.revision ?? null,
      amount: entry.payload.amountNano === undefined ? null : money(BigInt(entry.payload.amountNano)),
    },
  };
}
