// Prometheus metrics of the data plane, served at GET /metrics. One registry
// per app (tests build several in one process). Values that already live in a
// component are read when scraped rather than copied on the request path.
import { Counter, Gauge, Registry } from "prom-client";
import type { Gateway } from "./gateway";
import { RedisRateLimiter } from "./limits/redis-rate-limiter";

export interface DataPlaneMetrics {
  registry: Registry;
  rateLimitRejections: Counter;
  /** Upstream attempts by provider and outcome (ok, http_<status>, timeout, unreachable, stream_failed, skipped, client_closed). */
  upstreamAttempts: Counter<"provider" | "outcome">;
}

const CIRCUIT_STATE_VALUE = { closed: 0, half_open: 1, open: 2 } as const;

export function createMetrics(gateway: () => Gateway): DataPlaneMetrics {
  const registry = new Registry();
  const rateLimitRejections = new Counter({ name: "gateway_rate_limit_rejections_total", help: "Requests refused with 429 rate_limit_exceeded.", registers: [registry] });
  new Gauge({
    name: "gateway_rate_limit_shared",
    help: "1 while the per-minute limit is shared through Redis, 0 while this replica falls back to its local share (or runs without Redis).",
    registers: [registry],
    collect() {
      this.set(gateway().rateLimiter.mode === "redis" ? 1 : 0);
    },
  });
  new Gauge({
    name: "gateway_rate_limit_fallback_checks",
    help: "Checks answered by the local fallback because Redis was unreachable (cumulative).",
    registers: [registry],
    collect() {
      const limiter = gateway().rateLimiter;
      this.set(limiter instanceof RedisRateLimiter ? limiter.fallbackChecks : 0);
    },
  });
  new Gauge({
    name: "gateway_billing_pending",
    help: "Settles and releases not yet accepted by the control plane (retried in the background).",
    registers: [registry],
    collect() {
      this.set(gateway().billing.pendingCount);
    },
  });
  const upstreamAttempts = new Counter({
    name: "gateway_upstream_attempts_total",
    help: "Upstream attempts by provider and outcome, retries and skipped paths included.",
    labelNames: ["provider", "outcome"] as const,
    registers: [registry],
  });
  new Gauge({
    name: "gateway_upstream_circuit_state",
    help: "Circuit breaker of each access path that has failed at least once: 0 closed, 1 half-open, 2 open.",
    labelNames: ["path"] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const view of gateway().health.circuitViews()) this.set({ path: view.path }, CIRCUIT_STATE_VALUE[view.state]);
    },
  });
  new Gauge({
    name: "gateway_upstream_circuit_opens",
    help: "Times each access path's circuit opened since this replica started (cumulative).",
    labelNames: ["path"] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const view of gateway().health.circuitViews()) this.set({ path: view.path }, view.opens);
    },
  });
  return { registry, rateLimitRejections, upstreamAttempts };
}
