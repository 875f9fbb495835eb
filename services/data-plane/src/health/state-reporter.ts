// Reports this replica's state to the control plane (ReportState) every interval, and within a second
// of a change, so operators see every data plane in one place (GET /admin/health on the control plane).
// A report never touches serving: it runs on its own timer, and a failed one is logged and sent
// again at the next tick.
import type { DataPlaneReport } from "@gateway/proto";
import { healthDetail, type HealthSources, unavailableReason } from "./health-state";

export interface ReporterIdentity {
  replicaId: string;
  version: string;
  startedAtMs: number;
  intervalMs: number;
}

/** The report of the state /health computes (one computation for both). */
export function buildReport(sources: HealthSources, identity: ReporterIdentity): DataPlaneReport {
  const detail = healthDetail(sources);
  return {
    replicaId: identity.replicaId,
    version: identity.version,
    startedAtUnixMs: String(identity.startedAtMs),
    reportIntervalMs: identity.intervalMs,
    draining: sources.draining(),
    unavailableReason: unavailableReason(sources) ?? "",
    controlPlaneLink: detail.control_plane,
    controlPlaneCalls: detail.control_plane_calls,
    catalogueRevision: detail.catalogue_revision ?? "",
    rateLimit: detail.rate_limit,
    circuits: detail.circuits.map((view) => ({
      path: view.path,
      state: view.state,
      consecutiveFailures: view.consecutive_failures,
      opens: view.opens,
      projectsOpen: view.projects_open ?? 0,
    })),
    keyPools: detail.key_pools.map((pool) => ({
      pool: pool.pool,
      source: pool.source,
      keys: pool.keys.map((key) => ({
        fingerprint: key.fingerprint,
        group: key.group,
        weight: key.weight,
        rpm: key.rpm ?? 0,
        tpm: String(key.tpm ?? 0),
        state: key.state,
        untilUnixMs: key.until === null ? "0" : String(Date.parse(key.until)),
        requestsLastMinute: key.requests_last_minute,
        tokensLastMinute: String(key.tokens_last_minute),
      })),
    })),
  };
}

/** What makes a report worth sending before the interval is up (failure counts and a key's use alone do not). */
const fingerprint = (report: DataPlaneReport) =>
  JSON.stringify({
    ...report,
    circuits: report.circuits?.map((circuit) => [circuit.path, circuit.state, circuit.projectsOpen]),
    keyPools: report.keyPools?.map((pool) => [pool.pool, pool.keys?.map((key) => [key.fingerprint, key.state])]),
  });

export class StateReporter {
  private timer: NodeJS.Timeout | undefined;
  private sending = false;
  private lastSent = "";
  private lastSentAtMs = 0;
  private failing = false;

  constructor(
    private readonly sources: HealthSources,
    private readonly send: (report: DataPlaneReport) => Promise<void>,
    private readonly identity: ReporterIdentity,
    private readonly log: { warn(object: object, message: string): void; info(object: object, message: string): void },
  ) {}

  /** Looks every second (or every interval, if shorter) and sends when the interval is up or the state changed. */
  start(): void {
    this.timer = setInterval(() => void this.tick(), Math.min(this.identity.intervalMs, 1000));
    this.timer.unref();
    void this.tick();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** One look: sends the report when due; resolves when that send is over. */
  async tick(): Promise<void> {
    if (this.sending) return;
    const report = buildReport(this.sources, this.identity);
    const seen = fingerprint(report);
    if (seen === this.lastSent && Date.now() - this.lastSentAtMs < this.identity.intervalMs) return;
    this.sending = true;
    try {
      await this.send(report);
      this.lastSent = seen;
      this.lastSentAtMs = Date.now();
      if (this.failing) this.log.info({}, "state report to the control plane sent again");
      this.failing = false;
    } catch (error) {
      // Once per outage: the next ticks try again without repeating the line.
      if (!this.failing) this.log.warn({ err: error }, "state report to the control plane failed; retried at the next tick");
      this.failing = true;
    } finally {
      this.sending = false;
    }
  }
}
