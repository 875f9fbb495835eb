// The worst case of one call, bound by bound (docs/money.md, "The worst case"):
// what each provider may bill beyond the body's bytes and the output limit, and
// the rates it may bill them at. The property test (hold-covers-usage) drives
// random requests through every path; these pin the figures.
import { describe, expect, it } from "vitest";
import { bodyMarks } from "../../src/billing/hold-estimate";
import { costNano } from "../../src/billing/pricing";
import {
  ANTHROPIC_DEFINED_TOOL_TOKENS,
  ANTHROPIC_TOOL_PROMPT_TOKENS,
  geminiThinkingAllowance,
  imageTokenAllowance,
} from "../../src/billing/provider-allowances";
import {
  affordableOutputTokens,
  type CallFacts,
  cappedBound,
  type UsageBound,
  usageBound,
  worstCaseNano,
  worstCaseRates,
} from "../../src/billing/worst-case";
import type { Price } from "../../src/catalogue/catalogue-snapshot";

const model = { maxOutputTokens: 8_192, contextLength: 200_000, outputModalities: ["text"] };

function facts(overrides: Partial<CallFacts> & { shared: Record<string, unknown> }): CallFacts {
  return {
    endpoint: "chat",
    protocol: "openai-compatible",
    upstreamModel: "gpt-4.1",
    model,
    original: undefined,
    forwardedBody: JSON.stringify(overrides.original ?? overrides.shared),
    nativeOnly: false,
    ...overrides,
  };
}

const price = (fields: Partial<Price> = {}): Price => ({
  inputNanoPerM: 1_000_000_000n,
  outputNanoPerM: 4_000_000_000n,
  imageNano: null,
  requestNano: null,
  verified: true,
  source: "test",
  ...fields,
});

const hello = [{ role: "user", content: "hello" }];

describe("output: the limit the upstream enforces, and what it produces beyond it", () => {
  it("OpenAI counts reasoning inside max_completion_tokens: the limit, times n", () => {
    const bound = usageBound(facts({ shared: { messages: hello, max_completion_tokens: 500, n: 3, reasoning_effort: "high" } }));
    expect([bound.outputLimitTokens, bound.outputBeyondLimitTokens]).toEqual([1_500, 0]);
  });

  it("Anthropic counts thinking inside max_tokens, and answers one choice", () => {
    const original = { model: "m", max_tokens: 4_000, thinking: { type: "enabled", budget_tokens: 3_000 }, messages: hello };
    const bound = usageBound(
      facts({
        protocol: "anthropic",
        upstreamModel: "claude-sonnet-4",
        original,
        shared: { messages: hello, max_completion_tokens: 4_000, n: 2 },
      }),
    );
    expect([bound.outputLimitTokens, bound.outputBeyondLimitTokens]).toEqual([4_000, 0]);
  });

  it("Gemini thinks beyond maxOutputTokens, up to the model's maximum budget (the issue's gemini-2.5-flash answer)", () => {
    const shared = { messages: hello, max_tokens: 100 };
    for (const upstreamModel of ["gemini-2.5-flash", "gemini-2.5-flash-lite"]) {
      expect(usageBound(facts({ protocol: "gemini", upstreamModel, shared })).outputBeyondLimitTokens).toBe(24_576);
    }
    expect(usageBound(facts({ protocol: "gemini", upstreamModel: "gemini-2.5-pro", shared })).outputBeyondLimitTokens).toBe(32_768);
    // Through OpenRouter too; and its answer at $0.30 / $2.50 per million is within the hold.
    const viaOpenRouter = usageBound(facts({ upstreamModel: "google/gemini-2.5-flash", shared }));
    expect(viaOpenRouter.outputBeyondLimitTokens).toBe(24_576);
    const flash = price({ inputNanoPerM: 300_000_000n, outputNanoPerM: 2_500_000_000n });
    const thoughtful = { inputTokens: 20, outputTokens: 100 + 20_000, reasoningTokens: 20_000 };
    expect(costNano(flash, thoughtful)).toBeLessThanOrEqual(worstCaseNano(flash, viaOpenRouter));
  });

  it("a Gemini model without thinking adds nothing; one without a published budget ceiling adds its maximum output", () => {
    expect(geminiThinkingAllowance("gemini-2.0-flash", 8_192, 1_000_000)).toBe(0);
    expect(geminiThinkingAllowance("gemini-1.5-pro", 8_192, 1_000_000)).toBe(0);
    expect(geminiThinkingAllowance("gemini-2.0-flash-thinking-exp", 8_192, 1_000_000)).toBe(8_192);
    expect(geminiThinkingAllowance("gemini-3-pro-preview", 65_536, 1_000_000)).toBe(65_536);
  });

  it("OpenRouter's reasoning.max_tokens is added: OpenRouter does not say it stays inside max_tokens", () => {
    const bound = usageBound(
      facts({
        upstreamModel: "anthropic/claude-sonnet-4",
        shared: { messages: hello, max_tokens: 1_000, reasoning: { max_tokens: 8_000 } },
      }),
    );
    expect([bound.outputLimitTokens, bound.outputBeyondLimitTokens]).toEqual([1_000, 8_000]);
  });

  it("a prediction's rejected tokens count inside the limit: nothing beyond it", () => {
    const prediction = { type: "content", content: "x".repeat(300) };
    const bound = usageBound(facts({ shared: { messages: hello, max_tokens: 10, prediction } }));
    expect([bound.outputLimitTokens, bound.outputBeyondLimitTokens]).toEqual([10, 0]);
  });

  it("without max tokens, the model's maximum output (its context when unknown)", () => {
    expect(usageBound(facts({ shared: { messages: hello } })).outputLimitTokens).toBe(8_192);
    const unknown = { ...model, maxOutputTokens: 0 };
    expect(usageBound(facts({ model: unknown, shared: { messages: hello } })).outputLimitTokens).toBe(200_000);
  });

  it("embeddings produce nothing: their input is the body's bytes", () => {
    const shared = { input: "hello", model: "e" };
    expect(usageBound(facts({ endpoint: "embeddings", shared }))).toMatchObject({
      inputTokens: Buffer.byteLength(JSON.stringify(shared)),
      outputLimitTokens: 0,
      outputBeyondLimitTokens: 0,
    });
  });
});

describe("input: the body's bytes, an allowance per media part, and what Anthropic adds for tools", () => {
  it("counts media parts in every shape a body is forwarded in", () => {
    const shapes = [
      { type: "image_url", image_url: { url: "https://x/a.png" } }, // OpenAI chat
      { type: "file", file: { file_data: "data:application/pdf;base64,AA" } },
      { type: "input_image", image_url: "https://x/a.png" }, // Responses
      { type: "input_file", file_data: "data:application/pdf;base64,AA" },
      { type: "image", source: { type: "base64", data: "AA" } }, // Anthropic
      { type: "document", source: { type: "base64", data: "AA" } },
      { inlineData: { mimeType: "image/png", data: "AA" } }, // Gemini
      { fileData: { fileUri: "https://x/a.png" } },
    ];
    expect(bodyMarks(JSON.stringify({ parts: shapes })).mediaParts).toBe(8);
    // A caller's text that spells a part is escaped in the JSON, and not counted.
    expect(bodyMarks(JSON.stringify({ text: '{"type":"image","inlineData":{}}' })).mediaParts).toBe(0);
  });

  it("adds the per-image allowance, GPT-4o mini's far larger count for its own model", () => {
    const shared = { messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "https://x/a.png" } }] }] };
    const bytes = Buffer.byteLength(JSON.stringify(shared));
    expect(usageBound(facts({ shared })).inputTokens).toBe(bytes + 5_000);
    expect(usageBound(facts({ upstreamModel: "gpt-4o-mini", shared })).inputTokens).toBe(bytes + 48_169);
    expect(imageTokenAllowance("openai/gpt-4o-mini")).toBe(48_169);
  });

  it("adds Anthropic's tool-use system prompt when tools go to a Claude model, directly or through OpenRouter", () => {
    const tools = [{ type: "function", function: { name: "f", parameters: { type: "object" } } }];
    const shared = { messages: hello, tools };
    const bytes = Buffer.byteLength(JSON.stringify(shared));
    expect(usageBound(facts({ protocol: "anthropic", upstreamModel: "claude-x", shared })).inputTokens).toBe(
      bytes + ANTHROPIC_TOOL_PROMPT_TOKENS,
    );
    expect(usageBound(facts({ upstreamModel: "anthropic/claude-sonnet-4", shared })).inputTokens).toBe(
      bytes + ANTHROPIC_TOOL_PROMPT_TOKENS,
    );
    expect(usageBound(facts({ upstreamModel: "openai/gpt-4.1", shared })).inputTokens).toBe(bytes);
  });

  it("and for each Anthropic-defined tool, whose definition the body does not carry", () => {
    const original = {
      model: "m",
      max_tokens: 10,
      messages: hello,
      tools: [
        { type: "bash_20250124", name: "bash" },
        { name: "f", input_schema: {} },
      ],
    };
    const bound = usageBound(facts({ protocol: "anthropic", upstreamModel: "claude-x", original, shared: { messages: hello } }));
    expect(bound.inputTokens).toBe(
      Buffer.byteLength(JSON.stringify(original)) + ANTHROPIC_TOOL_PROMPT_TOKENS + ANTHROPIC_DEFINED_TOOL_TOKENS,
    );
  });

  it("holds a native-only request's input at the model's whole context at least", () => {
    expect(usageBound(facts({ shared: { messages: hello }, nativeOnly: true })).inputTokens).toBe(200_000);
  });
});

describe("rates: the highest that can apply to each side", () => {
  const bound = (overrides: Partial<UsageBound> = {}): UsageBound => ({
    inputTokens: 1_000,
    outputLimitTokens: 100,
    outputBeyondLimitTokens: 0,
    images: 0,
    inputImages: 0,
    webSearches: 0,
    cacheWrite: "none",
    audioInput: false,
    imageInput: false,
    audioOutput: false,
    imageOutput: false,
    serviceTiers: [],
    ...overrides,
  });
  const rates = { cacheWrite5m: 1_250_000_000n, cacheWrite1h: 2_000_000_000n, reasoning: 5_000_000_000n, audioOutput: 9_000_000_000n };

  it("cache-write rates only when the body can write a cache, the hour's when a 1h ttl appears; never below input", () => {
    expect(worstCaseRates(price({ rates }), bound()).input).toBe(1_000_000_000n);
    expect(worstCaseRates(price({ rates }), bound({ cacheWrite: "5m" })).input).toBe(1_250_000_000n);
    expect(worstCaseRates(price({ rates }), bound({ cacheWrite: "1h" })).input).toBe(2_000_000_000n);
    expect(worstCaseRates(price({ rates: { cacheWrite5m: 1n } }), bound({ cacheWrite: "5m" })).input).toBe(1_000_000_000n);
  });

  it("reads the forwarded body for cache_control, anywhere in it", () => {
    const original = { system: [{ type: "text", text: "s", cache_control: { type: "ephemeral", ttl: "1h" } }], messages: hello };
    expect(usageBound(facts({ protocol: "anthropic", upstreamModel: "claude-x", original, shared: { messages: hello } })).cacheWrite).toBe(
      "1h",
    );
    expect(usageBound(facts({ shared: { messages: hello } })).cacheWrite).toBe("none");
  });

  it("output at the highest output-side rate: reasoning always, audio and image output when the answer may carry them", () => {
    expect(worstCaseRates(price({ rates }), bound()).output).toBe(5_000_000_000n);
    expect(worstCaseRates(price({ rates }), bound({ audioOutput: true })).output).toBe(9_000_000_000n);
  });

  it("long-context rates once the input bound passes the threshold", () => {
    const longContext = { aboveInputTokens: 200_000, rates: { input: 2_000_000_000n, output: 6_000_000_000n } };
    expect(worstCaseRates(price({ longContext }), bound({ inputTokens: 200_000 }))).toEqual({
      input: 1_000_000_000n,
      output: 4_000_000_000n,
    });
    expect(worstCaseRates(price({ longContext }), bound({ inputTokens: 200_001 }))).toEqual({
      input: 2_000_000_000n,
      output: 6_000_000_000n,
    });
  });

  it("the requested service tier's rates when above the standard ones; any priced tier for auto", () => {
    const serviceTiers = new Map([
      ["priority", { input: 2_000_000_000n, output: 8_000_000_000n }],
      ["flex", { input: 500_000_000n, output: 2_000_000_000n }],
    ]);
    expect(worstCaseRates(price({ serviceTiers }), bound({ serviceTiers: ["flex"] }))).toEqual({
      input: 1_000_000_000n,
      output: 4_000_000_000n,
    });
    expect(worstCaseRates(price({ serviceTiers }), bound({ serviceTiers: ["priority"] })).output).toBe(8_000_000_000n);
    expect(worstCaseRates(price({ serviceTiers }), bound({ serviceTiers: ["auto"] })).output).toBe(8_000_000_000n);
    expect(usageBound(facts({ shared: { messages: hello, service_tier: "priority" } })).serviceTiers).toEqual(["priority"]);
  });

  it("one price asked with every mix of flags answers as a fresh price does (its answers are kept per price and flags)", () => {
    const longContext = { aboveInputTokens: 1_000, rates: { input: 3_000_000_000n, output: 7_000_000_000n } };
    const fields = {
      rates: { ...rates, audioInput: 11_000_000_000n, imageInput: 12_000_000_000n, imageOutput: 13_000_000_000n },
      longContext,
    };
    const kept = price(fields);
    const mixes: Partial<UsageBound>[] = [];
    for (const inputTokens of [1_000, 1_001])
      for (const cacheWrite of ["none", "5m", "1h"] as const)
        for (const flags of [0, 1, 2, 4, 8, 15])
          mixes.push({
            inputTokens,
            cacheWrite,
            audioInput: (flags & 1) > 0,
            imageInput: (flags & 2) > 0,
            audioOutput: (flags & 4) > 0,
            imageOutput: (flags & 8) > 0,
          });
    // Twice over, forwards then backwards, so a kept answer is read for other mixes than the one that made it.
    for (const mix of [...mixes, ...mixes.reverse()])
      expect(worstCaseRates(kept, bound(mix))).toEqual(worstCaseRates(price(fields), bound(mix)));
    expect(worstCaseRates(kept, bound({ inputTokens: 1_000, imageInput: true })).input).toBe(12_000_000_000n);
    expect(worstCaseRates(kept, bound({ inputTokens: 1_001 })).input).toBe(3_000_000_000n);
  });

  it("adds the request, output image and input image prices", () => {
    const unitPrice = price({ inputNanoPerM: 0n, outputNanoPerM: 0n, requestNano: 7n, imageNano: 100n, inputImageNano: 10n });
    expect(worstCaseNano(unitPrice, bound({ images: 4, inputImages: 3 }))).toBe(7n + 400n + 30n);
  });
});

describe("affordableOutputTokens: the cap whose worst case fits", () => {
  const base = usageBound(facts({ shared: { messages: hello } }));

  it.each([
    [price({ inputNanoPerM: 2_000_000_000n, outputNanoPerM: 8_000_000_000n }), 10_000_000n],
    [price({ inputNanoPerM: 400_000_000n, outputNanoPerM: 1_600_000_000n }), 23_600n],
    [price({ inputNanoPerM: 150_000_000n, outputNanoPerM: 600_000_000n, requestNano: 1_000n }), 5_000n],
    [price({ inputNanoPerM: 37_500_000n, outputNanoPerM: 150_000_000n, rates: { reasoning: 600_000_000n } }), 1_000_000n],
  ])("gives the largest output limit whose worst case fits the budget (%#)", (tokenPrice, above) => {
    for (const beyond of [0, 5_000]) {
      const bound = cappedBound({ ...base, outputBeyondLimitTokens: beyond }, 0);
      // A budget that covers the prompt and the thinking beyond the limit, and some answer.
      const budget = worstCaseNano(tokenPrice, bound) + above;
      const tokens = affordableOutputTokens(tokenPrice, bound, budget);
      expect(tokens).toBeGreaterThan(0);
      expect(worstCaseNano(tokenPrice, { ...bound, outputLimitTokens: tokens })).toBeLessThanOrEqual(budget);
      expect(worstCaseNano(tokenPrice, { ...bound, outputLimitTokens: tokens + 1 })).toBeGreaterThan(budget);
    }
  });

  it("gives 0 when the prompt alone exceeds the budget", () => {
    expect(affordableOutputTokens(price(), { ...base, inputTokens: 1_000_000 }, 10n)).toBe(0);
  });

  it("is unbounded when output is free", () => {
    expect(affordableOutputTokens(price({ outputNanoPerM: 0n }), base, 1_000_000n)).toBe(Number.MAX_SAFE_INTEGER);
  });
});
