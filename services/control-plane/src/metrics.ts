// Prometheus metrics of the control plane, served at GET /metrics on the admin
// port (no token, like /health). Values are read from the services when scraped.
import { Gauge, Registry } from "prom-client";
import type { ControlPlaneServices } from "./control-plane";

export function createMetrics(services: ControlPlaneServices): Registry {
  const registry = new Registry();
  new Gauge({
    name: "gateway_holds_expired",
    help: "Holds voided by the sweeper after their TTL (cumulative, this replica).",
    registers: [registry],
    collect() {
      this.set(services.sweeper.expiredTotal);
    },
  });
  new Gauge({
    name: "gateway_money_batches",
    help: "Group-commit transactions written (cumulative, this replica).",
    registers: [registry],
    collect() {
      this.set(services.ledger.batcher.batches);
    },
  });
  new Gauge({
    name: "gateway_money_operations",
    help: "Reserve, settle and release operations written in those transactions (cumulative, this replica).",
    registers: [registry],
    collect() {
      this.set(services.ledger.batcher.operations);
    },
  });
  return registry;
}
