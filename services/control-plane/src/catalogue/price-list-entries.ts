// The public price lists as their publishers write them (OpenRouter's model list, models.dev's api.json,
// litellm's model_prices_and_context_window.json): the fields price-lists.ts reads, nothing more.

/** The fields of an OpenRouter `GET /api/v1/models` entry the generator reads. */
export interface OpenRouterModel {
  id: string;
  name?: string;
  canonical_slug?: string;
  created?: number;
  context_length?: number | null;
  architecture?: { input_modalities?: string[]; output_modalities?: string[] };
  /** Per-token decimal strings (`request`, `web_search`: USD each); `overrides`: long-context tiers. */
  pricing?: Record<string, unknown>;
  top_provider?: { context_length?: number | null; max_completion_tokens?: number | null };
  supported_parameters?: string[];
}

/** models.dev's per-1M costs of a model (`tiers`: long-context prices, `context_over_200k` their older form). */
export interface ModelsDevCost {
  input?: number;
  output?: number;
  cache_read?: number;
  cache_write?: number;
  reasoning?: number;
  input_audio?: number;
  output_audio?: number;
  tiers?: ({ tier?: { type?: string; size?: number } } & Record<string, unknown>)[];
  context_over_200k?: Record<string, unknown>;
}

/** A models.dev `api.json` provider-model entry (costs already USD per 1M tokens). */
export interface ModelsDevModel {
  id: string;
  name?: string;
  status?: string;
  cost?: ModelsDevCost;
  limit?: { context?: number; output?: number };
}

/** A litellm `model_prices_and_context_window.json` entry (costs USD per token; many more `*_cost*` keys). */
export interface LitellmEntry {
  litellm_provider?: string;
  mode?: string;
  input_cost_per_token?: number;
  output_cost_per_token?: number;
  max_input_tokens?: number;
  max_output_tokens?: number;
  [key: string]: unknown;
}

export interface OpenRouterList {
  /** Capture date, used in `source` texts. */
  date: string;
  models: OpenRouterModel[];
}

/** The three publishers' lists, as read from a folder laid out like ../shared/data/catalogue. */
export interface PriceLists {
  /** Newest first: an id takes its figures from the first list that has it. */
  openrouter: OpenRouterList[];
  modelsDev: Record<string, { models: Record<string, ModelsDevModel> }>;
  litellm: Record<string, LitellmEntry>;
}
