// Prometheus metrics of the data plane, served at GET /metrics on their own
// port (METRICS_PORT, @gateway/proto's metrics-server.ts). One registry
// per app (tests build several in one process). Values that already live in a
// component are read when scraped rather than copied on the request path, and
// the labelled ones counted per request are metric families (metric-families.ts):
// a call site names its label values, `overhead.series("before_upstream")`.
import { collectDefaultMetrics, Counter, Gauge, Registry } from "prom-client";
import { cumulative } from "./cumulative-counter";
import { GenAiMetrics } from "./gen-ai-metrics";
import { CounterFamily, HistogramFamily, UsdCounterFamily } from "./metric-families";
import type { DrawJournalStats } from "./billing/draw-journal";
import type { RateLimiter } from "./limits/rate-limiter";
import { KEY_STATES, type KeyPool } from "./providers/key-pool/key-pool";
import type { CircuitView } from "./routing/circuit-breaker";

export interface DataPlaneMetrics {
  registry: Registry;
  rateLimitRejections: Counter;
  /** Model calls refused with 503 overloaded (DATA_PLANE_MAX_IN_FLIGHT). */
  overloadRefusals: Counter;
  /** Upstream attempts by provider and outcome (ok, http_<status>, timeout, unreachable, stream_failed, skipped, client_closed). */
  upstreamAttempts: CounterFamily;
  /** Answers by route, status, the model that answered and its access path ("" before one was chosen). */
  requests: CounterFamily;
  /** By route and stream ("true", "false"). */
  requestDuration: HistogramFamily;
  /** Time from sending to the upstream's response headers, by provider. */
  upstreamLatency: HistogramFamily;
  /** Streams: time from sending to the upstream's first event, by provider. */
  upstreamFirstEvent: HistogramFamily;
  /** Upstream stream events that were not the JSON their protocol promises, by provider and content_lost. */
  upstreamMalformedEvents: CounterFamily;
  /** The gateway's own time by phase: before the first upstream send (auth, limit, routing, hold), and after the answer (settle). */
  overhead: HistogramFamily;
  /** Same-path retries by provider, and answers or attempts moved to another access path or model (by kind). */
  retries: CounterFamily;
  fallbacks: CounterFamily;
  /** Upstream attempts by provider key pool, key fingerprint and outcome (ok, rate_limited, refused, failed). */
  providerKeyRequests: CounterFamily;
  /** Turns of conversations by what became of their pin (new, kept, broken) and why it gave way (docs/routing.md, "Affinity"). */
  affinityTurns: CounterFamily;
  /** By result. */
  keyCacheLookups: CounterFamily;
  /** Keys the control plane found not valid (invalid), and keys refused unasked, their client past AUTH_FAILURES_PER_MINUTE (throttled). */
  authFailures: CounterFamily;
  /** By method and outcome. */
  controlPlaneCalls: HistogramFamily;
  /** Answers whose aggregator reported its own cost (OpenRouter): the gateway's charge over it, by model. */
  upstreamCostRatio: HistogramFamily;
  /** Cost a settle computed but did not debit (the hold capped it), by model and access path; counted in nano-USD, shown in USD. */
  unbilledUsd: UsdCounterFamily;
  /** OpenTelemetry GenAI token usage, time to first token and request duration, and the spend in USD (gen-ai-metrics.ts). */
  genAi: GenAiMetrics;
}

/** Ratio buckets around 1 (the catalogue price agrees with the aggregator's charge). */
const RATIO = [0.5, 0.8, 0.9, 0.95, 0.99, 1.01, 1.05, 1.1, 1.25, 2];

/** Latency buckets from 0.5 ms (the gateway's own work) to 2 minutes (long completions). */
const SECONDS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

const CIRCUIT_STATE_VALUE = { closed: 0, half_open: 1, open: 2 } as const;

/** What the gauges read when scraped: the components keep these figures themselves. */
export interface MetricSources {
  rateLimiter: Pick<RateLimiter, "mode" | "stats">;
  billing: {
    readonly pendingCount: number;
    readonly drawsUnderWayCount: number;
    readonly leases: { readonly openCount: number; readonly stats: { granted: number; refused: number; leasedRequests: number } };
    readonly journalStats: DrawJournalStats | undefined;
    readonly journalCircuitOpen: boolean;
  };
  health: { circuitViews(): CircuitView[] };
  controlPlane: { readonly stall: { readonly stalled: boolean; readonly fastFailures: number } };
  keyPools: ReadonlyMap<string, Pick<KeyPool, "states">>;
}

export function createMetrics(sources: MetricSources, options: { projectLabels: boolean } = { projectLabels: false }): DataPlaneMetrics {
  const registry = new Registry();
  // Process CPU, RSS, heap, GC and event-loop lag (nodejs_eventloop_lag_*).
  collectDefaultMetrics({ register: registry });
  const rateLimitRejections = new Counter({
    name: "gateway_rate_limit_rejections_total",
    help: "Requests refused with 429 rate_limit_exceeded.",
    registers: [registry],
  });
  new Gauge({
    name: "gateway_rate_limit_shared",
    help: "1 while the per-minute limit is shared through Redis, 0 while this replica falls back to its local share (or runs without Redis).",
    registers: [registry],
    collect() {
      this.set(sources.rateLimiter.mode === "redis" ? 1 : 0);
    },
  });
  cumulative(
    registry,
    "gateway_rate_limit_fallback_checks_total",
    "Checks answered by the local fallback because Redis was unreachable.",
    () => [[{}, sources.rateLimiter.stats.fallbackChecks]],
  );
  cumulative(
    registry,
    "gateway_rate_limit_block_admissions_total",
    "Requests admitted from admission blocks (taken from the shared window ahead of time for busy projects far below their limit).",
    () => [[{}, sources.rateLimiter.stats.blockAdmissions]],
  );
  cumulative(
    registry,
    "gateway_rate_limit_block_returns_total",
    "Admissions of admission blocks given back unused: while in the window, other replicas may have been refused for them (docs/limits.md).",
    () => [[{}, sources.rateLimiter.stats.blockReturns]],
  );
  new Gauge({
    name: "gateway_billing_pending",
    help: "Settles and releases not yet accepted by the control plane (retried in the background).",
    registers: [registry],
    collect() {
      this.set(sources.billing.pendingCount);
    },
  });
  new Gauge({
    name: "gateway_draws_under_way",
    help: "Debits drawn from budget leases, not on the ledger yet (queued or in flight; their requests are answered or about to be; retried ones count in gateway_billing_pending).",
    registers: [registry],
    collect() {
      this.set(sources.billing.drawsUnderWayCount);
    },
  });
  cumulative(
    registry,
    "gateway_draw_journal_appends_total",
    "Answered leased debits kept before their answers left: in Redis (kept), in the local file while Redis failed, was late or its circuit open (file), or nowhere (failed: those answers waited for their draws).",
    () => {
      const stats = sources.billing.journalStats;
      return stats
        ? [
            [{ outcome: "kept" }, stats.kept],
            [{ outcome: "file" }, stats.keptLocally],
            [{ outcome: "failed" }, stats.failed],
          ]
        : [];
    },
    ["outcome"],
  );
  cumulative(
    registry,
    "gateway_draw_journal_bypassed_total",
    "Draw journal appends not sent to Redis, its circuit being open (each went to the local file, or its answer waited for its draw).",
    () => (sources.billing.journalStats ? [[{}, sources.billing.journalStats.bypassed]] : []),
  );
  cumulative(
    registry,
    "gateway_draw_journal_recovered_total",
    "Entries a predecessor on this data plane's draw journal directory left (answered while Redis was away, maybe not drawn), drawn again at start.",
    () => (sources.billing.journalStats ? [[{}, sources.billing.journalStats.recovered]] : []),
  );
  new Gauge({
    name: "gateway_draw_journal_circuit_open",
    help: "1 while the draw journal's Redis failed or was late and a probe has not seen it answer since (leased debits go to the local file), else 0.",
    registers: [registry],
    collect() {
      this.set(sources.billing.journalCircuitOpen ? 1 : 0);
    },
  });
  new Gauge({
    name: "gateway_budget_leases_open",
    help: "Budget leases this replica holds now (taking requests, or retired with requests still in flight).",
    registers: [registry],
    collect() {
      this.set(sources.billing.leases.openCount);
    },
  });
  cumulative(
    registry,
    "gateway_budget_lease_events_total",
    "Budget leases granted and refused, and requests whose worst case came out of a lease instead of a reserve.",
    () => {
      const { stats } = sources.billing.leases;
      return [
        [{ event: "granted" }, stats.granted],
        [{ event: "refused" }, stats.refused],
        [{ event: "leased_request" }, stats.leasedRequests],
      ];
    },
    ["event"],
  );
  const upstreamAttempts = new CounterFamily(
    registry,
    "gateway_upstream_attempts_total",
    "Upstream attempts by provider and outcome, retries and skipped paths included.",
    ["provider", "outcome"],
  );
  new Gauge({
    name: "gateway_upstream_circuit_state",
    help: "Circuit breaker of each access path that has failed at least once: 0 closed, 1 half-open, 2 open.",
    labelNames: ["access_path"] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const view of sources.health.circuitViews()) this.set({ access_path: view.path }, CIRCUIT_STATE_VALUE[view.state]);
    },
  });
  new Gauge({
    name: "gateway_control_plane_stalled",
    help: "1 while the control plane is known to run out its deadline (calls that admit a request then fail at once), else 0.",
    registers: [registry],
    collect() {
      this.set(sources.controlPlane.stall.stalled ? 1 : 0);
    },
  });
  cumulative(registry, "gateway_control_plane_fast_failures_total", "Calls refused at once while the control plane was stalled.", () => [
    [{}, sources.controlPlane.stall.fastFailures],
  ]);
  new Gauge({
    name: "gateway_upstream_project_circuits_open",
    help: "Projects whose own circuit on each access path is open or half-open (their failures alone do not close the path to others).",
    labelNames: ["access_path"] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const view of sources.health.circuitViews()) this.set({ access_path: view.path }, view.projects_open ?? 0);
    },
  });
  cumulative(
    registry,
    "gateway_upstream_circuit_opens_total",
    "Times each access path's circuit opened since this replica started.",
    () => sources.health.circuitViews().map((view) => [{ access_path: view.path }, view.opens]),
    ["access_path"],
  );
  new Gauge({
    name: "gateway_provider_keys",
    help: "Keys of each pool of provider keys (by the variable paths name) by state: active, cooling (resting after a 429), refused (after a 401 or 403).",
    labelNames: ["pool", "state"] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [pool, keys] of sources.keyPools) {
        const states = keys.states();
        for (const state of KEY_STATES) this.set({ pool, state }, states[state]);
      }
    },
  });
  const histogram = (name: string, help: string, labelNames: readonly string[]) =>
    new HistogramFamily(registry, name, help, labelNames, SECONDS);
  return {
    registry,
    genAi: new GenAiMetrics(registry, options.projectLabels),
    rateLimitRejections,
    overloadRefusals: new Counter({
      name: "gateway_overload_refusals_total",
      help: "Model calls refused with 503 overloaded: the replica held DATA_PLANE_MAX_IN_FLIGHT calls.",
      registers: [registry],
    }),
    upstreamAttempts,
    requests: new CounterFamily(registry, "gateway_requests_total", "Answers by route, HTTP status, answering model and access path.", [
      "route",
      "status",
      "model",
      "access_path",
    ]),
    requestDuration: histogram(
      "gateway_request_duration_seconds",
      "Whole request time as the client saw it (streams: until the last byte).",
      ["route", "stream"],
    ),
    upstreamLatency: histogram("gateway_upstream_latency_seconds", "From sending a request upstream to its response headers.", [
      "provider",
    ]),
    upstreamFirstEvent: histogram(
      "gateway_upstream_first_event_seconds",
      "Streams: from sending upstream to the first event (time to first token).",
      ["provider"],
    ),
    upstreamMalformedEvents: new CounterFamily(
      registry,
      "gateway_upstream_malformed_events_total",
      "Upstream stream events that were not the JSON their protocol promises, by provider; content_lost=true ended their stream as broken, false (a keep-alive) were dropped.",
      ["provider", "content_lost"],
    ),
    overhead: histogram(
      "gateway_overhead_seconds",
      "The gateway's own time: before_upstream (auth, limit, routing, hold) and after_upstream (settle, final chunk).",
      ["phase"],
    ),
    retries: new CounterFamily(registry, "gateway_upstream_retries_total", "Same-path retries after a transient failure.", ["provider"]),
    fallbacks: new CounterFamily(
      registry,
      "gateway_fallbacks_total",
      "Attempts sent to another access path of the same model (path) or to another model (model).",
      ["kind"],
    ),
    providerKeyRequests: new CounterFamily(
      registry,
      "gateway_provider_key_requests_total",
      "Upstream attempts by pool of provider keys, key (its fingerprint: the first 8 hex characters of its sha256) and outcome: ok, rate_limited (429: the key rests), refused (401, 403: out of the pool), failed (anything else).",
      ["pool", "key", "outcome"],
    ),
    affinityTurns: new CounterFamily(
      registry,
      "gateway_affinity_turns_total",
      "Turns of conversations by what became of their pin: new (none live), kept, or broken, with the reason it gave way.",
      ["outcome", "reason"],
    ),
    keyCacheLookups: new CounterFamily(
      registry,
      "gateway_key_cache_lookups_total",
      "API key validations: hit (cached), miss (asked the control plane), stale (served from a stale entry while the control plane is away).",
      ["result"],
    ),
    authFailures: new CounterFamily(
      registry,
      "gateway_auth_failures_total",
      "API keys that failed: invalid (the control plane found them not valid), throttled (refused with 429 auth_failures_exceeded without asking: their client address had AUTH_FAILURES_PER_MINUTE fail).",
      ["outcome"],
    ),
    controlPlaneCalls: histogram("gateway_control_plane_call_seconds", "gRPC calls to the control plane by method and outcome.", [
      "method",
      "outcome",
    ]),
    upstreamCostRatio: new HistogramFamily(
      registry,
      "gateway_upstream_cost_ratio",
      "The gateway's charge over the cost an aggregator reported for the same answer (OpenRouter), by model: far from 1 means a stale catalogue price.",
      ["model"],
      RATIO,
    ),
    unbilledUsd: new UsdCounterFamily(
      registry,
      "gateway_unbilled_usd_total",
      "USD of computed cost left off the ledger because the debit was capped (at the hold, or at what a late settle still found free), by model and access path: usage beyond the worst case reserved.",
      ["model", "access_path"],
    ),
  };
}
