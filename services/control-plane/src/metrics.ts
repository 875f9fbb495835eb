// Prometheus metrics of the control plane, served at GET /metrics on their own
// port (METRICS_PORT, no token; not the admin port). Values are read from the services when scraped.
import { collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import type { ControlPlaneServices } from "./control-plane-services";

export interface ControlPlaneMetrics {
  registry: Registry;
  /** gRPC calls served, by method and outcome. */
  grpcCalls: Histogram<"method" | "outcome">;
}

export function createMetrics(services: ControlPlaneServices): ControlPlaneMetrics {
  const registry = new Registry();
  // Process CPU, RSS, heap, GC and event-loop lag.
  collectDefaultMetrics({ register: registry });
  const cumulative = (name: string, help: string, read: () => number | bigint) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        this.set(Number(read()));
      },
    });
  cumulative(
    "gateway_holds_expired",
    "Holds voided by the sweeper after their TTL (cumulative, this replica).",
    () => services.sweeper.expiredTotal,
  );
  cumulative(
    "gateway_draw_journal_entries_applied",
    "Draws read from dead data planes' journals and applied before their leases were voided (cumulative, this replica; replays of draws that had landed included).",
    () => services.sweeper.journalEntriesApplied,
  );
  cumulative(
    "gateway_draw_journal_deferrals",
    "Expired leases kept (renewed) by the sweeper because their draw journal could not be read (cumulative, this replica).",
    () => services.sweeper.journalDeferrals,
  );
  cumulative(
    "gateway_money_batches",
    "Group-commit transactions written (cumulative, this replica).",
    () => services.ledger.batcher.batches,
  );
  cumulative(
    "gateway_money_operations",
    "Reserve, settle and release operations written in those transactions (cumulative, this replica).",
    () => services.ledger.batcher.operations,
  );
  // Ledger totals across all replicas, read from the projects table when scraped (one row per project, not per entry).
  new Gauge({
    name: "gateway_ledger_balance_nano",
    help: "Sum of all projects' balances (= the ledger's total), nano-USD.",
    registers: [registry],
    async collect() {
      this.set(Number((await services.ledger.totals()).balanceNano));
    },
  });
  new Gauge({
    name: "gateway_ledger_held_nano",
    help: "Sum of all projects' active holds, nano-USD.",
    registers: [registry],
    async collect() {
      this.set(Number((await services.ledger.totals()).heldNano));
    },
  });
  new Gauge({
    name: "gateway_holds",
    help: "Money calls answered by outcome (cumulative, this replica; a retried call's replay counts again): reserve reserved|insufficient_credits|spend_cap_exceeded|unknown_project, settle settled|already_released|unknown_request, release released|already_settled|unknown_request.",
    labelNames: ["event", "outcome"] as const,
    registers: [registry],
    collect() {
      for (const [key, count] of services.ledger.stats.holds) {
        const [event, outcome] = key.split(":") as [string, string];
        this.set({ event, outcome }, count);
      }
    },
  });
  const grpcCalls = new Histogram({
    name: "gateway_grpc_server_seconds",
    help: "gRPC calls served to data planes, by method and outcome.",
    labelNames: ["method", "outcome"] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  return { registry, grpcCalls };
}
