// The latest state report of each data plane (ReportState), one row per replica in PostgreSQL so that
// every control-plane replica answers GET /admin/health with all of them, whichever one a data plane
// reports to. Times are the database's clock (replicas' clocks may differ); rows not heard from for
// the retention period are pruned.
import type { DataPlaneReport__Output } from "@gateway/proto";
import type { Database } from "../database/connect";

export interface CircuitReport {
  path: string;
  state: string;
  consecutive_failures: number;
  opens: number;
  projects_open: number;
}

/** A pool of provider keys on a data plane; keys by fingerprint (a key never leaves its data plane but upstream). */
export interface KeyPoolReport {
  pool: string;
  source: string;
  keys: {
    fingerprint: string;
    group: string;
    weight: number;
    rpm: number | null;
    tpm: number | null;
    state: string;
    until: string | null;
    requests_last_minute: number;
    tokens_last_minute: number;
  }[];
}

export interface StoredReport {
  replicaId: string;
  controlPlaneReplica: string;
  version: string;
  startedAt: Date;
  reportIntervalMs: number;
  draining: boolean;
  unavailableReason: string | null;
  controlPlaneLink: string;
  controlPlaneCalls: string;
  catalogueRevision: string | null;
  rateLimit: string;
  circuits: CircuitReport[];
  keyPools: KeyPoolReport[];
  reportedAt: Date;
  /** Milliseconds since the report, by the database's clock. */
  ageMs: number;
}

interface ReportRow {
  replica_id: string;
  control_plane_replica: string;
  version: string;
  started_at: Date;
  report_interval_ms: number;
  draining: boolean;
  unavailable_reason: string | null;
  control_plane_link: string;
  control_plane_calls: string;
  catalogue_revision: string | null;
  rate_limit: string;
  circuits: CircuitReport[];
  key_pools: KeyPoolReport[];
  reported_at: Date;
  age_ms: string;
}

export class DataPlaneReports {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly database: Pick<Database, "query">,
    /** Rows older than this are deleted. */
    private readonly retentionMs: number,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** Keeps the report as the replica's latest. */
  async record(report: DataPlaneReport__Output, controlPlaneReplica: string): Promise<void> {
    const circuits: CircuitReport[] = report.circuits.map((circuit) => ({
      path: circuit.path,
      state: circuit.state,
      consecutive_failures: circuit.consecutiveFailures,
      opens: circuit.opens,
      projects_open: circuit.projectsOpen,
    }));
    const keyPools: KeyPoolReport[] = report.keyPools.map((pool) => ({
      pool: pool.pool,
      source: pool.source,
      keys: pool.keys.map((key) => ({
        fingerprint: key.fingerprint,
        group: key.group,
        weight: key.weight,
        rpm: key.rpm || null,
        tpm: Number(key.tpm) || null,
        state: key.state,
        until: key.untilUnixMs === "0" ? null : new Date(Number(key.untilUnixMs)).toISOString(),
        requests_last_minute: key.requestsLastMinute,
        tokens_last_minute: Number(key.tokensLastMinute),
      })),
    }));
    await this.database.query(
      `INSERT INTO data_plane_reports (replica_id, control_plane_replica, version, started_at, report_interval_ms, draining,
         unavailable_reason, control_plane_link, control_plane_calls, catalogue_revision, rate_limit, circuits, key_pools, reported_at)
       VALUES ($1, $2, $3, to_timestamp($4::bigint / 1000.0), $5, $6, $7, $8, $9, $10, $11, $12::jsonb, $13::jsonb, now())
       ON CONFLICT (replica_id) DO UPDATE SET control_plane_replica = excluded.control_plane_replica, version = excluded.version,
         started_at = excluded.started_at, report_interval_ms = excluded.report_interval_ms, draining = excluded.draining,
         unavailable_reason = excluded.unavailable_reason, control_plane_link = excluded.control_plane_link,
         control_plane_calls = excluded.control_plane_calls, catalogue_revision = excluded.catalogue_revision,
         rate_limit = excluded.rate_limit, circuits = excluded.circuits, key_pools = excluded.key_pools,
         reported_at = excluded.reported_at`,
      [
        report.replicaId,
        controlPlaneReplica,
        report.version,
        report.startedAtUnixMs || "0",
        report.reportIntervalMs,
        report.draining,
        report.unavailableReason || null,
        report.controlPlaneLink,
        report.controlPlaneCalls,
        report.catalogueRevision || null,
        report.rateLimit,
        JSON.stringify(circuits),
        JSON.stringify(keyPools),
      ],
    );
  }

  /** Every replica's latest report, by replica id. */
  async latest(): Promise<StoredReport[]> {
    const rows = await this.database.query<ReportRow>(
      `SELECT *, floor(extract(epoch FROM now() - reported_at) * 1000)::bigint::text AS age_ms
       FROM data_plane_reports ORDER BY replica_id`,
      [],
    );
    return rows.map((row) => ({
      replicaId: row.replica_id,
      controlPlaneReplica: row.control_plane_replica,
      version: row.version,
      startedAt: new Date(row.started_at),
      reportIntervalMs: row.report_interval_ms,
      draining: row.draining,
      unavailableReason: row.unavailable_reason,
      controlPlaneLink: row.control_plane_link,
      controlPlaneCalls: row.control_plane_calls,
      catalogueRevision: row.catalogue_revision,
      rateLimit: row.rate_limit,
      circuits: row.circuits,
      keyPools: row.key_pools,
      reportedAt: new Date(row.reported_at),
      ageMs: Math.max(0, Number(row.age_ms)),
    }));
  }

  /** Deletes the reports of replicas not heard from for the retention period; returns how many. */
  async prune(): Promise<number> {
    const rows = await this.database.query<{ replica_id: string }>(
      "DELETE FROM data_plane_reports WHERE reported_at < now() - ($1::bigint * interval '1 millisecond') RETURNING replica_id",
      [String(this.retentionMs)],
    );
    return rows.length;
  }

  /** Prunes now and then a few times per retention period (at most hourly). */
  start(): void {
    const prune = () => void this.prune().catch(this.onError);
    prune();
    this.timer = setInterval(prune, Math.min(Math.max(this.retentionMs / 4, 1000), 3_600_000));
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
