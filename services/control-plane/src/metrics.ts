// Prometheus metrics of the control plane, served at GET /metrics on their own
// port (METRICS_PORT, no token; not the admin port). Values are read from the services when scraped.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
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
  // Figures the services count themselves, read when scraped; typed counter (rate() and increase() apply).
  const cumulative = (name: string, help: string, read: () => number | bigint) =>
    new Counter({
      name,
      help,
      registers: [registry],
      collect() {
        this.reset();
        this.inc(Number(read()));
      },
    });
  cumulative(
    "gateway_holds_expired_total",
    "Holds voided by the sweeper after their TTL (this replica).",
    () => services.sweeper.expiredTotal,
  );
  cumulative(
    "gateway_draw_journal_entries_applied_total",
    "Draws read from dead data planes' journals and applied before their leases were voided (this replica; replays of draws that had landed included).",
    () => services.sweeper.journalEntriesApplied,
  );
  cumulative(
    "gateway_draw_journal_deferrals_total",
    "Expired leases kept (renewed) by the sweeper because their draw journal could not be read (this replica).",
    () => services.sweeper.journalDeferrals,
  );
  cumulative("gateway_money_batches_total", "Group-commit transactions written (this replica).", () => services.ledger.batcher.batches);
  cumulative(
    "gateway_money_operations_total",
    "Reserve, settle and release operations written in those transactions (this replica).",
    () => services.ledger.batcher.operations,
  );
  // Ledger totals across all replicas, read from the projects table when scraped (one row per project, not per entry).
  // Money in USD, the base unit (OpenTelemetry's GenAI conventions count cost in USD too); the ledger keeps nano-USD.
  new Gauge({
    name: "gateway_ledger_balance_usd",
    help: "Sum of all projects' balances (= the ledger's total), USD.",
    registers: [registry],
    async collect() {
      this.set(Number((await services.ledger.totals()).balanceNano) / 1e9);
    },
  });
  new Gauge({
    name: "gateway_ledger_held_usd",
    help: "Sum of all projects' active holds, USD.",
    registers: [registry],
    async collect() {
      this.set(Number((await services.ledger.totals()).heldNano) / 1e9);
    },
  });
  new Gauge({
    name: "gateway_usage_pending_debits",
    help: "Debits written and not yet rolled up into the usage rollups (all replicas): a few seconds' worth; growing, the sweeper is behind.",
    registers: [registry],
    async collect() {
      this.set(await services.ledger.pendingRollUps());
    },
  });
  new Counter({
    name: "gateway_holds_total",
    help: "Money calls answered by outcome (this replica; a retried call's replay counts again): reserve reserved|insufficient_credits|spend_cap_exceeded|unknown_project, settle settled|already_released|unknown_request, release released|already_settled|unknown_request.",
    labelNames: ["event", "outcome"] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [key, count] of services.ledger.stats.holds) {
        const [event, outcome] = key.split(":") as [string, string];
        this.inc({ event, outcome }, count);
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
