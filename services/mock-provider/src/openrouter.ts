// OpenRouter as a flavour of the OpenAI persona, switched on per request by
// `x-mock-persona: openrouter` or a `vendor/model` id in the body (the direct
// OpenAI API never has a slash in a model id; `x-mock-persona: openai` forces
// it off). It adds what OpenRouter adds to OpenAI's shapes: a top-level
// `provider`, `native_finish_reason` per choice, `usage.cost` (USD at a fixed
// fake rate) with `is_byok` and `cost_details`, scripted cache writes in
// `prompt_tokens_details.cache_write_tokens`, a `: OPENROUTER PROCESSING`
// comment before the first stream event, and its own error forms.
import { insertAfter, isRecord, type Json } from "./json";
import { frame, DONE_FRAME } from "./sse";
import { cacheWrites, type TokenCounts } from "./usage";
import type { StreamFraming, Wire } from "./wire";
import { MALFORMED_JSON } from "./wire";

/** Fake OpenRouter prices, USD per token: $1 per million prompt tokens, $2 per million completion tokens. */
export const OPENROUTER_PROMPT_USD_PER_MILLION = 1;
export const OPENROUTER_COMPLETION_USD_PER_MILLION = 2;

export const OPENROUTER_PROCESSING = ": OPENROUTER PROCESSING\n\n";

export function wantsOpenRouter(headers: Record<string, unknown>, body: unknown): boolean {
  const asked = String(headers["x-mock-persona"] ?? "").toLowerCase();
  if (asked === "openrouter") return true;
  if (asked === "openai") return false;
  return isRecord(body) && typeof body.model === "string" && body.model.includes("/");
}

export function openRouterId(created: number, n: number): string {
  return `gen-${created}-mock${n}`;
}

function vendorOf(model: string): string {
  const slash = model.indexOf("/");
  return slash === -1 ? "openai" : model.slice(0, slash);
}

// The upstream names OpenRouter reports (as seen in the recordings: "OpenAI", "Google AI Studio").
const PROVIDERS: Record<string, string> = {
  openai: "OpenAI",
  anthropic: "Anthropic",
  google: "Google AI Studio",
  mistralai: "Mistral",
  "x-ai": "xAI",
  deepseek: "DeepSeek",
};

export function providerFor(model: string): string {
  const vendor = vendorOf(model);
  return PROVIDERS[vendor] ?? vendor;
}

// The upstream's own finish reason, as OpenRouter passes it through.
const NATIVE_FINISH: Record<string, Record<string, string>> = {
  google: { stop: "STOP", length: "MAX_TOKENS", tool_calls: "STOP", content_filter: "SAFETY" },
  anthropic: { stop: "end_turn", length: "max_tokens", tool_calls: "tool_use", content_filter: "refusal" },
};

export function nativeFinishReason(finish: unknown, model: string): unknown {
  if (typeof finish !== "string") return finish ?? null;
  return NATIVE_FINISH[vendorOf(model)]?.[finish] ?? finish;
}

const count = (value: unknown): number => (typeof value === "number" ? value : 0);

/** Usage with OpenRouter's cost fields, priced at the fake rate from its own token counts. */
export function withCost(usage: Json): Json {
  const promptMicro = count(usage.prompt_tokens) * OPENROUTER_PROMPT_USD_PER_MILLION;
  const completionMicro = count(usage.completion_tokens) * OPENROUTER_COMPLETION_USD_PER_MILLION;
  // Integer micro-dollars divided once, so the float is the nearest to the exact price.
  const priced = insertAfter(usage, "total_tokens", { cost: (promptMicro + completionMicro) / 1e6, is_byok: false });
  const details = {
    upstream_inference_cost: null,
    upstream_inference_prompt_cost: promptMicro / 1e6,
    upstream_inference_completions_cost: completionMicro / 1e6,
  };
  return "prompt_tokens_details" in priced
    ? insertAfter(priced, "prompt_tokens_details", { cost_details: details })
    : { ...priced, cost_details: details };
}

/**
 * Scripted cache writes (both lifetimes: OpenRouter reports none apart) in `cache_write_tokens`, after
 * `cached_tokens` as in openrouter.usage.cache_write.observed.json; usage without the details object
 * gets `{cached_tokens: 0, cache_write_tokens, audio_tokens: 0}` after `total_tokens`.
 */
function withCacheWrites(usage: Json, writes: number): Json {
  const details = isRecord(usage.prompt_tokens_details)
    ? insertAfter(usage.prompt_tokens_details, "cached_tokens", { cache_write_tokens: writes })
    : { cached_tokens: 0, cache_write_tokens: writes, audio_tokens: 0 };
  return insertAfter(usage, "total_tokens", { prompt_tokens_details: details });
}

/** A completion or chunk as OpenRouter sends it: provider, native finish reasons, priced usage (with the scripted cache writes). */
export function asOpenRouter(body: Json, model: string, counts?: TokenCounts): Json {
  const out = insertAfter(body, "id", { provider: providerFor(model) });
  if (Array.isArray(out.choices)) {
    out.choices = out.choices.map((choice: unknown) =>
      isRecord(choice) && "finish_reason" in choice
        ? insertAfter(choice, "finish_reason", { native_finish_reason: nativeFinishReason(choice.finish_reason, model) })
        : choice,
    );
  }
  if (isRecord(out.usage)) {
    const writes = counts && cacheWrites(counts);
    out.usage = withCost(writes === undefined ? out.usage : withCacheWrites(out.usage, writes));
  }
  return out;
}

/** OpenRouter includes the usage chunk when asked the OpenAI way or its own (`usage: {include: true}`). */
export function openRouterIncludesUsage(body: Json): boolean {
  return (
    (isRecord(body.stream_options) && body.stream_options.include_usage === true) || (isRecord(body.usage) && body.usage.include === true)
  );
}

export function openRouterStreamFraming(recordedError: Json, identity: { id: string; created: number; model: string }): StreamFraming {
  const errorChunk = {
    ...recordedError,
    id: identity.id,
    created: identity.created,
    model: identity.model,
    provider: providerFor(identity.model),
  };
  return {
    contentType: "text/event-stream",
    prelude: OPENROUTER_PROCESSING,
    end: DONE_FRAME,
    errorEvent: frame(JSON.stringify(errorChunk)),
    malformedEvent: frame(MALFORMED_JSON),
  };
}

/** OpenRouter's envelope `{"error":{"code":<status>,"message"}}`, bodies from its API reference's examples. */
export function createOpenRouterWire(errorsByStatus: Readonly<Record<string, Json>>): Wire {
  const error = (code: number, message: string) => ({ error: { code, message } });
  return {
    requestIdHeader: "x-request-id",
    errorBody: (status) =>
      errorsByStatus[String(status)] ?? error(status, status >= 500 ? "Internal Server Error" : "Invalid request parameters"),
    invalidRequest: (message) => error(400, message),
    notFound: () => errorsByStatus["404"] ?? error(404, "Resource not found"),
    fixtureBody: (fixture) => fixture,
  };
}
