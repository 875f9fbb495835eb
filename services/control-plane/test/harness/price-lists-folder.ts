// A small folder of public price lists, laid out like ../shared/data/catalogue (litellm/,
// models.dev/, openrouter/), for tests of `gatewayctl prices check`: one model, claude-x, whose
// figures agree unless an override makes one differ.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";

export interface SourcesOptions {
  /** Anthropic's id of the model (litellm, models.dev) and OpenRouter's. */
  nativeId?: string;
  openrouterId?: string;
  openrouterCacheRead?: string;
  litellmLongInput?: number;
}

/**
 * Writes the folder into `dir`: the model at $3 / $15, cache reads $0.30, in litellm and models.dev
 * (anthropic, also 5-minute cache writes $3.75; litellm also input $6 above 200k), and in two OpenRouter captures.
 */
export function writeSources(dir: string, overrides: SourcesOptions = {}): void {
  const { nativeId = "claude-x-1", openrouterId = "anthropic/claude-x" } = overrides;
  const write = (file: string, body: unknown) => {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), JSON.stringify(body));
  };
  write("litellm/model_prices_and_context_window.json", {
    sample_spec: { input_cost_per_token: 0 },
    [nativeId]: {
      litellm_provider: "anthropic",
      mode: "chat",
      input_cost_per_token: 3e-6,
      output_cost_per_token: 1.5e-5,
      cache_read_input_token_cost: 3e-7,
      input_cost_per_token_above_200k_tokens: overrides.litellmLongInput ?? 6e-6,
    },
  });
  write("models.dev/api.json", {
    anthropic: { models: { [nativeId]: { id: nativeId, cost: { input: 3, output: 15, cache_read: 0.3, cache_write: 3.75 } } } },
  });
  write("openrouter/openrouter.api.v1.models.2026-08-01.json", {
    data: [
      {
        id: openrouterId,
        pricing: { prompt: "0.000003", completion: "0.000015", input_cache_read: overrides.openrouterCacheRead ?? "0.0000003" },
      },
    ],
  });
  // An older capture: the newer list decides for ids in both.
  write("openrouter/openrouter.api.v1.models.2026-05-15.json", {
    data: [{ id: openrouterId, pricing: { prompt: "0.000009", completion: "0.000009" } }],
  });
}
