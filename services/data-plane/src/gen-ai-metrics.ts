// Metrics in OpenTelemetry's GenAI semantic conventions, Prometheus form
// (dots to underscores, the unit in the name, counters end in _total), plus
// the spend in USD. Counted at the settle, from the cost parts the ledger
// debit was computed from, so the token and spend series add up to the
// ledger (billed tokens, not what the upstream reported beyond a cap).
//
// Choices the conventions leave open:
// - gen_ai.client.token.usage is a histogram per operation in OpenTelemetry; operators chart
//   totals and rates, so here it is a counter, gen_ai_client_token_usage_total.
// - gen_ai_token_type is one of input, cached, cache_write, output, reasoning, and the kinds do
//   not overlap: input + cached + cache_write are the prompt's tokens, output + reasoning the
//   completion's (OpenTelemetry's "input" counts cached tokens too; here they are apart, as
//   they are priced apart). Audio and image tokens count as input or output.
// - gen_ai_provider_name is the access path's provider (openai, openrouter, google...), the
//   name the catalogue and the gateway's other metrics use.
// - Project and key labels grow with every project and key: only with METRICS_PROJECT_LABELS=true.
import type { Registry } from "prom-client";
import type { CostPart } from "./control-plane/control-plane-client";
import { CounterFamily, HistogramFamily, UsdCounterFamily } from "./metric-families";

/** The token type of each token cost component (catalogue-snapshot.ts RATE_COMPONENT); other parts are not tokens. */
const TOKEN_TYPE: Readonly<Record<string, string>> = {
  input: "input",
  audio_input: "input",
  image_input: "input",
  cached_input: "cached",
  cache_write_5m: "cache_write",
  cache_write_1h: "cache_write",
  output: "output",
  audio_output: "output",
  image_output: "output",
  reasoning: "reasoning",
};

/** What the series read of a call (engine/call.ts's Call has it; the engine is a layer above this file). */
export interface GenAiCall {
  readonly plan: {
    readonly request: { readonly operation: string; readonly body: Record<string, unknown> };
    readonly identity: { readonly keyId: string };
  };
  readonly target: { readonly model: { readonly id: string }; readonly path: { readonly provider: string } };
  readonly projectId: string;
  /** performance.now() when the request's body had been read. */
  readonly receivedAt: number;
}

const GEN_AI_LABELS = ["gen_ai_operation_name", "gen_ai_provider_name", "gen_ai_request_model", "gen_ai_response_model"] as const;

/** OpenTelemetry's GenAI duration buckets (seconds), as the conventions advise for these histograms. */
const GEN_AI_SECONDS = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];

export class GenAiMetrics {
  private readonly tokenUsage: CounterFamily;
  private readonly spend: UsdCounterFamily;
  private readonly timeToFirstToken: HistogramFamily;
  private readonly requestDuration: HistogramFamily;

  constructor(
    registry: Registry,
    /** Spend also by project and key (METRICS_PROJECT_LABELS=true): one series per project, key and model. */
    private readonly projectLabels: boolean,
  ) {
    this.tokenUsage = new CounterFamily(
      registry,
      "gen_ai_client_token_usage_total",
      "Billed tokens by operation, provider, requested and answering model and token type (input, cached, cache_write, output, reasoning; the types do not overlap).",
      [...GEN_AI_LABELS, "gen_ai_token_type"],
    );
    this.spend = new UsdCounterFamily(
      registry,
      "gateway_spend_usd_total",
      "USD debited from projects' balances, by answering model and provider (and project and key with METRICS_PROJECT_LABELS=true).",
      projectLabels ? ["model", "provider", "project", "key"] : ["model", "provider"],
    );
    this.timeToFirstToken = new HistogramFamily(
      registry,
      "gen_ai_server_time_to_first_token_seconds",
      "Streams: from the request's body being read to the upstream's first event (retries and fallbacks included), by operation, provider and models.",
      GEN_AI_LABELS,
      GEN_AI_SECONDS,
    );
    this.requestDuration = new HistogramFamily(
      registry,
      "gen_ai_server_request_duration_seconds",
      "Model calls: from the request's arrival to its last byte as the client saw it, by operation, provider and models.",
      GEN_AI_LABELS,
      GEN_AI_SECONDS,
    );
  }

  /** A settle's billed tokens by type and its debit: exactly what went to the ledger for this call. */
  settled(call: GenAiCall, parts: readonly CostPart[], debitedNano: bigint): void {
    const labels = genAiLabels(call);
    const byType = new Map<string, number>();
    for (const part of parts) {
      const type = TOKEN_TYPE[part.component];
      if (type !== undefined && part.units > 0) byType.set(type, (byType.get(type) ?? 0) + part.units);
    }
    for (const [type, units] of byType) this.tokenUsage.series(...labels, type).inc(units);
    const model = call.target.model.id;
    const provider = call.target.path.provider;
    const spend = this.projectLabels
      ? this.spend.series(model, provider, call.projectId, call.plan.identity.keyId)
      : this.spend.series(model, provider);
    spend.add(debitedNano);
  }

  firstToken(call: GenAiCall): void {
    this.timeToFirstToken.series(...genAiLabels(call)).observe((performance.now() - call.receivedAt) / 1000);
  }

  completed(call: GenAiCall, seconds: number): void {
    this.requestDuration.series(...genAiLabels(call)).observe(seconds);
  }
}

function genAiLabels(call: GenAiCall): [string, string, string, string] {
  const requested = call.plan.request.body.model;
  return [call.plan.request.operation, call.target.path.provider, typeof requested === "string" ? requested : "", call.target.model.id];
}
