// What each publisher's list says beyond input and output, in the catalogue's components
// (src/catalogue/price-lists.ts), on hand-made entries shaped like the real ones: litellm's
// `*_above_<N>k_tokens` / `*_priority` / `*_flex` keys, models.dev's `cost.tiers`, OpenRouter's
// `pricing` and its `overrides`.
import { describe, expect, it } from "vitest";
import {
  type LitellmEntry,
  litellmComponents,
  modelsDevComponents,
  nativeFiguresById,
  openrouterComponents,
  openrouterFigure,
  type PriceLists,
  VENDORS,
} from "../../src/catalogue/price-lists";

const M = 1_000_000_000n; // 1 USD per million tokens (or 1 USD each), in nano-USD
const usd = (dollars: number): bigint => BigInt(Math.round(dollars * 1e6)) * 1000n; // test figures have at most 6 decimals

const sorted = (sheet: ReadonlyMap<string, bigint>) => Object.fromEntries([...sheet].sort(([a], [b]) => (a < b ? -1 : 1)));

describe("litellm's components", () => {
  // claude-sonnet-4-20250514 as litellm lists it, with the 1h write above 200k that litellm has for Opus.
  const claude: LitellmEntry = {
    litellm_provider: "anthropic",
    mode: "chat",
    input_cost_per_token: 0.000003,
    output_cost_per_token: 0.000015,
    cache_read_input_token_cost: 3e-7,
    cache_creation_input_token_cost: 0.00000375,
    cache_creation_input_token_cost_above_1hr: 0.000006,
    input_cost_per_token_above_200k_tokens: 0.000006,
    output_cost_per_token_above_200k_tokens: 0.0000225,
    cache_read_input_token_cost_above_200k_tokens: 6e-7,
    cache_creation_input_token_cost_above_200k_tokens: 0.0000075,
    cache_creation_input_token_cost_above_1hr_above_200k_tokens: 0.000012,
    search_context_cost_per_query: { search_context_size_high: 0.01, search_context_size_low: 0.01, search_context_size_medium: 0.01 },
  };

  it("maps cache reads and writes (5 minutes, 1 hour), the long-context tier and the per-search price", () => {
    expect(sorted(litellmComponents(claude))).toEqual({
      cached_input: usd(0.3),
      cache_write_5m: usd(3.75),
      cache_write_1h: usd(6), // `_above_1hr` is the 1-hour write, not a threshold
      "long_context.above_input_tokens": 200_000n,
      "long_context.input": usd(6),
      "long_context.output": usd(22.5),
      "long_context.cached_input": usd(0.6),
      "long_context.cache_write_5m": usd(7.5),
      "long_context.cache_write_1h": usd(12),
      web_search: usd(0.01),
    });
  });

  it.each([
    ["128k", 128_000n],
    ["272k", 272_000n],
    ["512k", 512_000n],
  ])("reads a threshold of %s as %s input tokens", (suffix, tokens) => {
    const sheet = litellmComponents({ input_cost_per_token: 1e-6, [`input_cost_per_token_above_${suffix}_tokens`]: 2e-6 });
    expect(sheet.get("long_context.above_input_tokens")).toBe(tokens);
    expect(sheet.get("long_context.input")).toBe(2n * M);
  });

  it("maps priority and flex rates to service tiers; leaves out a long-context rate within a tier, batches and zeros", () => {
    // gpt-5.4 as litellm lists it, plus the keys the catalogue cannot hold.
    const sheet = litellmComponents({
      input_cost_per_token: 0.0000025,
      output_cost_per_token: 0.000015,
      cache_read_input_token_cost: 2.5e-7,
      input_cost_per_token_priority: 0.000005,
      output_cost_per_token_priority: 0.00003,
      cache_read_input_token_cost_priority: 5e-7,
      input_cost_per_token_flex: 0.00000125,
      output_cost_per_token_flex: 0.0000075,
      input_cost_per_token_above_272k_tokens_priority: 0.00001, // a long-context priority rate: no place for it
      input_cost_per_token_batches: 0.00000125, // the batch API: not a tier the gateway uses
      cache_creation_input_token_cost: 0, // "not charged separately": the fallback (input) applies
      input_cost_per_audio_token_priority: 0.00004,
    });
    expect(sorted(sheet)).toEqual({
      cached_input: usd(0.25),
      "service_tiers.priority.input": usd(5),
      "service_tiers.priority.output": usd(30),
      "service_tiers.priority.cached_input": usd(0.5),
      "service_tiers.priority.audio_input": usd(40),
      "service_tiers.flex.input": usd(1.25),
      "service_tiers.flex.output": usd(7.5),
    });
  });

  it("maps reasoning, audio and image token rates, the per-image output and the per-request price", () => {
    const sheet = litellmComponents({
      input_cost_per_token: 3e-7,
      output_cost_per_token: 0.0000025,
      output_cost_per_reasoning_token: 0.0000025,
      input_cost_per_audio_token: 0.000001,
      output_cost_per_audio_token: 0.00008,
      input_cost_per_image_token: 3e-7,
      output_cost_per_image_token: 0.00003,
      output_cost_per_image: 0.039,
      input_cost_per_request: 0.005,
      input_cost_per_image: 0.000002, // per image for Gemini, per image token for xAI: not mapped
    });
    expect(sorted(sheet)).toEqual({
      reasoning: usd(2.5),
      audio_input: usd(1),
      audio_output: usd(80),
      image_input: usd(0.3),
      image_output: usd(30),
      image: usd(0.039),
      request: usd(0.005),
    });
  });

  it("takes the dearest web-search price when it depends on the search context size", () => {
    const sheet = litellmComponents({
      search_context_cost_per_query: { search_context_size_low: 0.03, search_context_size_medium: 0.035, search_context_size_high: 0.05 },
    });
    expect(sheet.get("web_search")).toBe(usd(0.05));
  });
});

describe("models.dev's components", () => {
  it("maps its cost names and a context tier (gemini-2.5-pro as models.dev lists it)", () => {
    const sheet = modelsDevComponents({
      input: 1.25,
      output: 10,
      cache_read: 0.125,
      tiers: [{ input: 2.5, output: 15, cache_read: 0.25, tier: { type: "context", size: 200000 } }],
      context_over_200k: { input: 2.5, output: 15, cache_read: 0.25 },
    });
    expect(sorted(sheet)).toEqual({
      cached_input: usd(0.125),
      "long_context.above_input_tokens": 200_000n,
      "long_context.input": usd(2.5),
      "long_context.output": usd(15),
      "long_context.cached_input": usd(0.25),
    });
  });

  it("maps cache writes, reasoning and audio; reads the older context_over_200k when there are no tiers; ignores other tier types", () => {
    expect(
      sorted(
        modelsDevComponents({
          input: 3,
          output: 15,
          cache_write: 3.75,
          reasoning: 15,
          input_audio: 1,
          output_audio: 20,
          context_over_200k: { input: 6, output: 22.5 },
        }),
      ),
    ).toEqual({
      cache_write_5m: usd(3.75),
      reasoning: usd(15),
      audio_input: usd(1),
      audio_output: usd(20),
      "long_context.above_input_tokens": 200_000n,
      "long_context.input": usd(6),
      "long_context.output": usd(22.5),
    });
    expect(sorted(modelsDevComponents({ input: 1, output: 2, tiers: [{ input: 9, tier: { type: "volume", size: 1000 } }] }))).toEqual({});
    expect(modelsDevComponents(undefined).size).toBe(0);
  });
});

describe("OpenRouter's components", () => {
  it("maps every per-token rate it bills, per request and per search, and its long-context override", () => {
    // anthropic/claude-sonnet-4 and google/gemini-2.5-pro as the 2026-08-01 list has them, merged.
    const sheet = openrouterComponents({
      prompt: "0.000003",
      completion: "0.000015",
      request: "0.0005",
      web_search: "0.01",
      input_cache_read: "0.0000003",
      input_cache_write: "0.00000375",
      input_cache_write_1h: "0.000006",
      internal_reasoning: "0.000015",
      audio: "0.000001",
      image: "0.000003",
      image_output: "0.00003",
      audio_output: "0.000064",
      input_audio_cache: "0.0000001", // cached audio: no catalogue component
      overrides: [{ min_prompt_tokens: 200000, prompt: "0.000006", completion: "0.0000225", input_cache_write_1h: "0.000012" }],
    });
    expect(sorted(sheet)).toEqual({
      cached_input: usd(0.3),
      cache_write_5m: usd(3.75),
      cache_write_1h: usd(6),
      reasoning: usd(15),
      audio_input: usd(1),
      image_input: usd(3),
      image_output: usd(30),
      audio_output: usd(64),
      request: usd(0.0005),
      web_search: usd(0.01),
      "long_context.above_input_tokens": 200_000n,
      "long_context.input": usd(6),
      "long_context.output": usd(22.5),
      "long_context.cache_write_1h": usd(12),
    });
  });

  it("merges several prompt-size tiers into one: the lowest threshold at the dearest rates (never billed below the upstream)", () => {
    // qwen/qwen3-max: above 32k and above 128k.
    const sheet = openrouterComponents({
      prompt: "0.00000078",
      completion: "0.0000039",
      overrides: [
        { min_prompt_tokens: 32000, prompt: "0.00000156", completion: "0.0000078" },
        { min_prompt_tokens: 128000, prompt: "0.00000195", completion: "0.00000975" },
      ],
    });
    expect(sorted(sheet)).toEqual({
      "long_context.above_input_tokens": 32_000n,
      "long_context.input": usd(1.95),
      "long_context.output": usd(9.75),
    });
  });

  it("ignores overrides with other conditions than the prompt size (time-limited promotions)", () => {
    const sheet = openrouterComponents({
      prompt: "0.000001",
      completion: "0.000002",
      overrides: [
        { utc_start: 1, utc_end: 2, prompt: "0.0000005" },
        { min_prompt_tokens: 1000, utc_days: [1], prompt: "0.0000005" },
      ],
    });
    expect(sheet.size).toBe(0);
  });

  it("the figure's output is the text rate; the media rates are components", () => {
    const figure = openrouterFigure(
      {
        id: "acme/painter",
        pricing: { prompt: "0.000001", completion: "0.000002", image_output: "0.00003", input_cache_read: "0.0000001" },
      },
      "2026-08-01",
    )!;
    expect(figure.price).toEqual({ input: M, output: 2n * M });
    expect(sorted(figure.components)).toEqual({ cached_input: usd(0.1), image_output: usd(30) });
  });
});

describe("a vendor's own figures for a native id", () => {
  const lists: PriceLists = {
    openrouter: [],
    modelsDev: { anthropic: { models: { "claude-x": { id: "claude-x", cost: { input: 3, output: 15, cache_read: 0.3 } } } } },
    litellm: {
      "claude-x": { litellm_provider: "anthropic", input_cost_per_token: 3e-6, output_cost_per_token: 1.5e-5 },
      "gemini/claude-x": { litellm_provider: "vertex_ai", input_cost_per_token: 1e-6, output_cost_per_token: 1e-6 },
    },
  };

  it("reads models.dev's entry, then litellm's native key (of the vendor's own provider only)", () => {
    expect(nativeFiguresById(VENDORS.anthropic!, "claude-x", lists).map((figure) => figure.label)).toEqual([
      "models.dev anthropic/claude-x",
      "litellm claude-x",
    ]);
    expect(nativeFiguresById(VENDORS.google!, "claude-x", lists)).toEqual([]);
  });
});
