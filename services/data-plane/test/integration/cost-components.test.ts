// usage.cost is what the provider's invoice says, at the catalogue's prices: for each provider the
// test scripts the mock to answer with the usage of a recorded answer (services/mock-provider/fixtures:
// openai.chat.cached, anthropic.messages.cache_write / cache_read / stream.cache,
// gemini.generateContent.cached, gemini.streamGenerateContent.thinking,
// openrouter.usage.cache_write.observed), computes the provider's published formula itself, and
// asserts usage.cost equals it to the nano-USD and equals the ledger's debit. Also: a prompt above
// the long-context threshold is priced at the upper tier, a `priority` answer at the priority rate.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { costToNano, marker, startStack, type GatewayStack, type TestProject } from "../harness/gateway-stack";
import { accessPath, catalogueOf, chatModel, price } from "../support/catalogue-file";

/** USD per million tokens (a decimal string, as a price page writes it) -> nano-USD per million, exactly. */
const nanoPerM = (usd: string): bigint => {
  const [whole, fraction = ""] = usd.split(".");
  return BigInt(whole!) * 1_000_000_000n + BigInt(fraction.padEnd(9, "0"));
};

/** Σ tokens x USD-per-million price, in nano-USD, rounded up once (the gateway's one rounding). */
const invoice = (...lines: [tokens: number, usdPerM: string][]): bigint => {
  const numerator = lines.reduce((sum, [tokens, usd]) => sum + BigInt(tokens) * nanoPerM(usd), 0n);
  return (numerator + 999_999n) / 1_000_000n;
};

// Each provider's own price sheet, as the test catalogue states it.
const GPT = { input: "0.40", cached: "0.10", output: "1.60", priority: { input: "0.70", cached: "0.175", output: "2.80" } };
const SONNET = { input: "3", cached: "0.30", write5m: "3.75", write1h: "6", output: "15" };
const SONNET_LONG = { input: "6", cached: "0.60", write5m: "7.50", write1h: "12", output: "22.50" };
const GEMINI_PRO = { input: "1.25", cached: "0.125", output: "10" };
const GEMINI_PRO_LONG = { input: "2.50", cached: "0.25", output: "15" };
const GEMINI_FLASH = { input: "0.30", cached: "0.03", output: "2.50" };
const OPENROUTER_CLAUDE = { input: "3", cached: "0.30", write: "3.75", write1h: "6", output: "15" };

const CATALOGUE = catalogueOf([
  chatModel("openai/gpt-4.1-mini", [
    accessPath("openai", "gpt-4.1-mini", "OPENAI_API_KEY", {
      ...price(GPT.input, GPT.output, { cached_input_per_m: GPT.cached }),
      service_tiers: {
        priority: { input_per_m: GPT.priority.input, cached_input_per_m: GPT.priority.cached, output_per_m: GPT.priority.output },
      },
    }),
  ]),
  chatModel(
    "anthropic/claude-sonnet-4",
    [
      accessPath("anthropic", "claude-sonnet-4-20250514", "ANTHROPIC_API_KEY", {
        ...price(SONNET.input, SONNET.output, {
          cached_input_per_m: SONNET.cached,
          cache_write_5m_per_m: SONNET.write5m,
          cache_write_1h_per_m: SONNET.write1h,
        }),
        long_context: {
          above_input_tokens: 200_000,
          input_per_m: SONNET_LONG.input,
          cached_input_per_m: SONNET_LONG.cached,
          cache_write_5m_per_m: SONNET_LONG.write5m,
          cache_write_1h_per_m: SONNET_LONG.write1h,
          output_per_m: SONNET_LONG.output,
        },
      }),
    ],
    { context_length: 1_000_000, max_output_tokens: 64_000 },
  ),
  chatModel(
    "google/gemini-2.5-pro",
    [
      accessPath("google", "gemini-2.5-pro", "GOOGLE_API_KEY", {
        ...price(GEMINI_PRO.input, GEMINI_PRO.output, { cached_input_per_m: GEMINI_PRO.cached }),
        long_context: {
          above_input_tokens: 200_000,
          input_per_m: GEMINI_PRO_LONG.input,
          cached_input_per_m: GEMINI_PRO_LONG.cached,
          output_per_m: GEMINI_PRO_LONG.output,
        },
      }),
    ],
    { context_length: 1_048_576, max_output_tokens: 65_536 },
  ),
  chatModel("google/gemini-2.5-flash", [
    accessPath(
      "google",
      "gemini-2.5-flash",
      "GOOGLE_API_KEY",
      price(GEMINI_FLASH.input, GEMINI_FLASH.output, { cached_input_per_m: GEMINI_FLASH.cached }),
    ),
  ]),
  chatModel("anthropic/claude-3.7-sonnet", [
    accessPath(
      "openrouter",
      "anthropic/claude-3.7-sonnet",
      "OPENROUTER_API_KEY",
      price(OPENROUTER_CLAUDE.input, OPENROUTER_CLAUDE.output, {
        cached_input_per_m: OPENROUTER_CLAUDE.cached,
        cache_write_5m_per_m: OPENROUTER_CLAUDE.write,
        cache_write_1h_per_m: OPENROUTER_CLAUDE.write1h,
      }),
    ),
  ]),
]);

describe("usage.cost equals the provider's invoice, and the ledger", () => {
  let stack: GatewayStack;
  let project: TestProject;

  beforeAll(async () => {
    stack = await startStack({ backend: "postgresql", mockAsProviders: ["openrouter", "anthropic", "google"] });
    await stack.loadCatalogue(CATALOGUE);
    project = await stack.createProject({ balanceUsd: "50.00" });
  });

  afterAll(async () => {
    await stack?.stop();
  });

  async function debit(requestId: string | null): Promise<bigint> {
    expect(requestId).toBeTruthy();
    const entries = (await stack.ledger(project.projectId)).filter((entry) => entry.request_id === requestId);
    expect(entries).toHaveLength(1);
    return -BigInt(entries[0]!.amount.nano);
  }

  /**
   * One call through `path` with the mock scripted to report `usage`; its usage.cost and debit, in
   * nano-USD. The prompt carries as many bytes as the usage has prompt tokens, as such a prompt does (a token
   * is at least a byte): the hold is sized from what the request can carry, so a usage no body could
   * produce would be capped at it. `cache` marks the prompt for Anthropic's cache, as a call that
   * writes it does (5 minutes, or an hour).
   */
  async function call(
    path: "/v1/chat/completions" | "/v1/messages" | "/v1/responses",
    body: Record<string, unknown>,
    usage: Record<string, unknown> & { prompt_tokens: number; cached_tokens?: number; cache_creation_tokens?: number },
    cache?: "5m" | "1h",
  ) {
    const tag = marker();
    await stack.mockScript({ match: tag, usage });
    // Counted as the vendor with the widest meaning does (Anthropic's input_tokens leaves the cache out).
    const promptTokens =
      usage.prompt_tokens + (usage.cached_tokens ?? 0) + (usage.cache_creation_tokens ?? 0) + Number(usage.cache_creation_1h_tokens ?? 0);
    const text = `What does the cache hold? ${tag} ${"x".repeat(promptTokens)}`;
    const content = cache
      ? [{ type: "text", text, cache_control: cache === "1h" ? { type: "ephemeral", ttl: "1h" } : { type: "ephemeral" } }]
      : text;
    const response = await fetch(`${stack.url}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${project.key}`, "content-type": "application/json" },
      body: JSON.stringify(path === "/v1/responses" ? { ...body, input: text } : { ...body, messages: [{ role: "user", content }] }),
    });
    const answer = await response.text();
    expect(response.status, answer.slice(0, 500)).toBe(200);
    const cost = body.stream ? streamedCost(answer) : (JSON.parse(answer) as { usage: { cost: number } }).usage.cost;
    return { cost: costToNano(cost), debit: await debit(response.headers.get("x-request-id")) };
  }

  /** usage.cost of the last SSE event that carries one (chat's usage chunk, Anthropic's message_delta). */
  function streamedCost(text: string): number {
    const costs = [...text.matchAll(/^data: (.*)$/gm)]
      .map((match) => match[1]!)
      .filter((data) => data !== "[DONE]")
      .map((data) => (JSON.parse(data) as { usage?: { cost?: number } }).usage?.cost)
      .filter((cost): cost is number => typeof cost === "number");
    expect(costs.length).toBeGreaterThan(0);
    return costs.at(-1)!;
  }

  describe("OpenAI: cached prompt tokens at the cached rate", () => {
    // openai.chat.cached.response.json: prompt_tokens 2006 of which cached_tokens 1920, completion 300.
    const usage = { prompt_tokens: 2006, completion_tokens: 300, cached_tokens: 1920 };
    const expected = invoice([2006 - 1920, GPT.input], [1920, GPT.cached], [300, GPT.output]);

    it.each([false, true])("stream %s", async (stream) => {
      const body = { model: "openai/gpt-4.1-mini", ...(stream ? { stream, stream_options: { include_usage: true } } : {}) };
      const { cost, debit: debited } = await call("/v1/chat/completions", body, usage);
      expect(cost).toBe(expected);
      expect(debited).toBe(expected);
    });

    it("Responses: openai.responses.cached.response.json, 2,560 of 3,700 input tokens cached, 640 of 741 out reasoning", async () => {
      const usage = { prompt_tokens: 3700, completion_tokens: 741, cached_tokens: 2560, reasoning_tokens: 640 };
      const { cost, debit: debited } = await call("/v1/responses", { model: "openai/gpt-4.1-mini" }, usage);
      // OpenAI bills reasoning tokens as output tokens.
      const responses = invoice([3700 - 2560, GPT.input], [2560, GPT.cached], [741, GPT.output]);
      expect(cost).toBe(responses);
      expect(debited).toBe(responses);
    });

    it("a `priority` answer is priced at the priority rates", async () => {
      const { cost, debit: debited } = await call(
        "/v1/chat/completions",
        { model: "openai/gpt-4.1-mini", service_tier: "priority" },
        { ...usage, service_tier: "priority" },
      );
      const priority = invoice([2006 - 1920, GPT.priority.input], [1920, GPT.priority.cached], [300, GPT.priority.output]);
      expect(cost).toBe(priority);
      expect(debited).toBe(priority);
      expect(priority).toBeGreaterThan(expected);
    });
  });

  it("a service tier no path of the model prices is refused before anything goes upstream", async () => {
    const tag = marker();
    const response = await fetch(`${stack.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${project.key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "anthropic/claude-3.7-sonnet", service_tier: "priority", messages: [{ role: "user", content: tag }] }),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe("no_eligible_model");
    expect(await stack.mockRequestsWith(tag)).toEqual([]);
  });

  describe("Anthropic: cache reads at 10%, 5-minute writes at 125%, 1-hour writes at 200%", () => {
    // anthropic.messages.cache_write / cache_read.response.json: input_tokens 21 (after the last
    // breakpoint), 188086 written or read, 393 out. Anthropic's input_tokens excludes both.
    const body = { model: "anthropic/claude-sonnet-4", max_tokens: 1024 };

    // A chat client marks its prompt with cache_control on a text part (OpenRouter's convention): forwarded.
    it.each(["/v1/messages", "/v1/chat/completions"] as const)("a 5-minute write (%s)", async (path) => {
      const usage = { prompt_tokens: 21, completion_tokens: 393, cache_creation_tokens: 188086 };
      const { cost, debit: debited } = await call(path, body, usage, "5m");
      const expected = invoice([21, SONNET.input], [188086, SONNET.write5m], [393, SONNET.output]);
      expect(cost).toBe(expected);
      expect(debited).toBe(expected);
    });

    it.each(["/v1/messages", "/v1/chat/completions"] as const)("a read (%s)", async (path) => {
      const usage = { prompt_tokens: 21, completion_tokens: 393, cached_tokens: 188086 };
      const { cost, debit: debited } = await call(path, body, usage, "5m");
      const expected = invoice([21, SONNET.input], [188086, SONNET.cached], [393, SONNET.output]);
      expect(cost).toBe(expected);
      expect(debited).toBe(expected);
    });

    it("1-hour and 5-minute writes with reads, streamed (message_delta carries the cost)", async () => {
      // anthropic.messages.stream.cache.sse: writes split by lifetime, reads beside them.
      const usage = {
        prompt_tokens: 12,
        completion_tokens: 280,
        cached_tokens: 6289,
        cache_creation_tokens: 3068,
        cache_creation_1h_tokens: 269,
      };
      const { cost, debit: debited } = await call("/v1/messages", { ...body, stream: true }, usage, "1h");
      const expected = invoice(
        [12, SONNET.input],
        [6289, SONNET.cached],
        [3068, SONNET.write5m],
        [269, SONNET.write1h],
        [280, SONNET.output],
      );
      expect(cost).toBe(expected);
      expect(debited).toBe(expected);
    });

    it("a prompt above 200k tokens (reads included) is priced at the long-context tier", async () => {
      const usage = { prompt_tokens: 1_000, completion_tokens: 500, cached_tokens: 250_000, cache_creation_tokens: 2_000 };
      const { cost, debit: debited } = await call("/v1/messages", body, usage, "5m");
      const expected = invoice(
        [1_000, SONNET_LONG.input],
        [250_000, SONNET_LONG.cached],
        [2_000, SONNET_LONG.write5m],
        [500, SONNET_LONG.output],
      );
      expect(cost).toBe(expected);
      expect(debited).toBe(expected);
    });
  });

  describe("Gemini: cached content at the cached rate, thinking as output", () => {
    it("gemini-2.5-pro, the recorded cached call: 323,383 of 323,388 prompt tokens cached, above 200k", async () => {
      // gemini.generateContent.cached.response.json: promptTokenCount includes cachedContentTokenCount.
      const usage = { prompt_tokens: 323388, completion_tokens: 397, cached_tokens: 323383 };
      const { cost, debit: debited } = await call("/v1/chat/completions", { model: "google/gemini-2.5-pro" }, usage);
      const expected = invoice([323388 - 323383, GEMINI_PRO_LONG.input], [323383, GEMINI_PRO_LONG.cached], [397, GEMINI_PRO_LONG.output]);
      expect(cost).toBe(expected);
      expect(debited).toBe(expected);
    });

    it("gemini-2.5-pro below 200k: the base cached rate", async () => {
      const usage = { prompt_tokens: 12_000, completion_tokens: 397, cached_tokens: 10_000 };
      const { cost } = await call("/v1/chat/completions", { model: "google/gemini-2.5-pro" }, usage);
      expect(cost).toBe(invoice([2_000, GEMINI_PRO.input], [10_000, GEMINI_PRO.cached], [397, GEMINI_PRO.output]));
    });

    it.each([false, true])("gemini-2.5-flash thoughts are billed as output, beside the candidates (stream %s)", async (stream) => {
      // gemini.streamGenerateContent.thinking.sse: thoughtsTokenCount 302 apart from candidatesTokenCount.
      const usage = { prompt_tokens: 9, completion_tokens: 40, reasoning_tokens: 302 };
      const body = { model: "google/gemini-2.5-flash", ...(stream ? { stream, stream_options: { include_usage: true } } : {}) };
      const { cost, debit: debited } = await call("/v1/chat/completions", body, usage);
      const expected = invoice([9, GEMINI_FLASH.input], [40 + 302, GEMINI_FLASH.output]);
      expect(cost).toBe(expected);
      expect(debited).toBe(expected);
    });
  });

  describe("OpenRouter: its cache reads and writes at its own prices", () => {
    it("openrouter.usage.cache_write.observed.json: 20,240 of 20,243 prompt tokens written, 1,270 out", async () => {
      const usage = { prompt_tokens: 20243, completion_tokens: 1270, cache_creation_tokens: 20240 };
      const { cost, debit: debited } = await call("/v1/chat/completions", { model: "anthropic/claude-3.7-sonnet" }, usage);
      const expected = invoice([3, OPENROUTER_CLAUDE.input], [20240, OPENROUTER_CLAUDE.write], [1270, OPENROUTER_CLAUDE.output]);
      expect(cost).toBe(expected);
      expect(debited).toBe(expected);
    });

    it("writes asked for an hour are billed at the 1-hour rate (OpenRouter reports no lifetime)", async () => {
      const usage = { prompt_tokens: 20243, completion_tokens: 1270, cache_creation_tokens: 20240 };
      const { cost, debit: debited } = await call("/v1/chat/completions", { model: "anthropic/claude-3.7-sonnet" }, usage, "1h");
      const expected = invoice([3, OPENROUTER_CLAUDE.input], [20240, OPENROUTER_CLAUDE.write1h], [1270, OPENROUTER_CLAUDE.output]);
      expect(cost).toBe(expected);
      expect(debited).toBe(expected);
    });

    it("reads, streamed", async () => {
      const usage = { prompt_tokens: 5_000, completion_tokens: 100, cached_tokens: 4_000 };
      const body = { model: "anthropic/claude-3.7-sonnet", stream: true, stream_options: { include_usage: true } };
      const { cost, debit: debited } = await call("/v1/chat/completions", body, usage);
      const expected = invoice([1_000, OPENROUTER_CLAUDE.input], [4_000, OPENROUTER_CLAUDE.cached], [100, OPENROUTER_CLAUDE.output]);
      expect(cost).toBe(expected);
      expect(debited).toBe(expected);
    });
  });
});
