// The adapter conformance suite (docs/providers.md): one set of cases every
// provider adapter must pass, through the control plane and a data plane, with
// the official `openai` client, against the mock provider's personas (OpenAI,
// OpenRouter, Anthropic, Gemini) replaying recorded payloads. The caller's
// experience must be the same whichever vendor answers: chat, streams, tools,
// structured output, image input, images out where supported, embeddings,
// every error class, and streamed and non-streamed answers that agree.
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { costToNano, marker, startStack, type GatewayStack, type TestProject } from "../harness/gateway-stack";
import { accessPath, chatModel, embeddingsModel, price } from "../support/catalogue-file";

interface Row {
  adapter: string;
  /** The catalogue model whose first access path goes through this adapter. */
  model: string;
  /** How the mock's request log names the persona that must have answered. */
  persona: string;
  parallelTools: boolean;
  imagesOut?: string;
  embeddings?: string;
}

const ROWS: Row[] = [
  {
    adapter: "openai-compatible (OpenAI)",
    model: "openai/gpt-4.1-mini",
    persona: "openai",
    parallelTools: true,
    embeddings: "openai/text-embedding-3-small",
  },
  {
    adapter: "openai-compatible (OpenRouter)",
    model: "meta-llama/llama-4-maverick",
    persona: "openrouter",
    parallelTools: true,
    imagesOut: "openai/gpt-5-image-mini",
  },
  { adapter: "anthropic", model: "anthropic/claude-sonnet-4", persona: "anthropic", parallelTools: false },
  {
    adapter: "gemini",
    model: "google/gemini-2.5-flash",
    persona: "gemini",
    parallelTools: false,
    imagesOut: "google/gemini-2.5-flash-image",
    embeddings: "google/gemini-embedding-001",
  },
];

const CATALOGUE = {
  version: 1,
  defaults: { embeddings: "openai/text-embedding-3-small" },
  models: [
    chatModel("openai/gpt-4.1-mini", [accessPath("openai", "gpt-4.1-mini", "OPENAI_API_KEY", price("0.40", "1.60"))]),
    chatModel("meta-llama/llama-4-maverick", [
      accessPath("openrouter", "meta-llama/llama-4-maverick", "OPENROUTER_API_KEY", price("0.15", "0.60")),
    ]),
    chatModel("anthropic/claude-sonnet-4", [
      accessPath("anthropic", "claude-sonnet-4-20250514", "ANTHROPIC_API_KEY", price("3", "15")),
      accessPath("openrouter", "anthropic/claude-sonnet-4", "OPENROUTER_API_KEY", price("3", "15")),
    ]),
    chatModel("google/gemini-2.5-flash", [
      accessPath("google", "gemini-2.5-flash", "GOOGLE_API_KEY", price("0.30", "2.50")),
      accessPath("openrouter", "google/gemini-2.5-flash", "OPENROUTER_API_KEY", price("0.30", "2.50")),
    ]),
    chatModel(
      "google/gemini-2.5-flash-image",
      [accessPath("google", "gemini-2.5-flash-image", "GOOGLE_API_KEY", price("0.30", "2.50", { per_image: "0.039" }))],
      {
        tiers: [],
        output_modalities: ["text", "image"],
      },
    ),
    chatModel("openai/gpt-5-image-mini", [accessPath("openrouter", "openai/gpt-5-image-mini", "OPENROUTER_API_KEY", price("2.50", "2"))], {
      tiers: [],
      output_modalities: ["text", "image"],
    }),
    embeddingsModel("openai/text-embedding-3-small", [
      accessPath("openai", "text-embedding-3-small", "OPENAI_API_KEY", price("0.02", "0")),
    ]),
    embeddingsModel("google/gemini-embedding-001", [accessPath("google", "gemini-embedding-001", "GOOGLE_API_KEY", price("0.15", "0"))]),
  ],
};

const WEATHER_TOOL = {
  type: "function" as const,
  function: {
    name: "get_weather",
    description: "Weather in a city",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  },
};
const TIME_TOOL = {
  type: "function" as const,
  function: {
    name: "get_time",
    description: "Time in a city",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  },
};
const SCHEMA = {
  type: "json_schema" as const,
  json_schema: {
    name: "city",
    strict: true,
    schema: { type: "object", properties: { name: { type: "string" } }, required: ["name"], additionalProperties: false },
  },
};
const RED_DOT = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

type Usage = { prompt_tokens: number; completion_tokens: number; cost: number };
type ToolCall = { id?: string; function: { name: string; arguments: string } };

describe("adapter conformance", () => {
  let stack: GatewayStack;
  let project: TestProject;
  let client: OpenAI;

  beforeAll(async () => {
    stack = await startStack({
      backend: "pglite",
      mockAsProviders: ["openrouter", "anthropic", "google"],
      dataPlaneEnv: { UPSTREAM_RETRY_BACKOFF_MS: "10", PATH_HEALTH_HALF_LIFE_MS: "1", CIRCUIT_FAILURE_THRESHOLD: "1000" },
    });
    await stack.loadCatalogue(CATALOGUE);
    project = await stack.createProject({ balanceUsd: "20.00" });
    client = new OpenAI({ apiKey: project.key, baseURL: `${stack.url}/v1`, maxRetries: 0 });
  });

  afterAll(async () => {
    await stack?.stop();
  });

  async function debit(requestId: string | null): Promise<bigint[]> {
    return (await stack.ledger(project.projectId))
      .filter((entry) => entry.request_id === requestId)
      .map((entry) => -BigInt(entry.amount.nano));
  }

  async function personasFor(tag: string): Promise<string[]> {
    return (await stack.mockRequestsWith(tag)).map((request) => String((request as { persona?: string }).persona));
  }

  /** A streamed answer, accumulated the way a client would. */
  async function streamed(request: OpenAI.ChatCompletionCreateParamsStreaming) {
    const { data: stream, response } = await client.chat.completions.create(request).withResponse();
    let content = "";
    let finish: string | null = null;
    let usage: Usage | undefined;
    let images = 0;
    const calls: ToolCall[] = [];
    for await (const chunk of stream) {
      const choice = chunk.choices[0];
      if (choice) {
        content += choice.delta.content ?? "";
        finish = choice.finish_reason ?? finish;
        images += ((choice.delta as { images?: unknown[] }).images ?? []).length;
        for (const call of choice.delta.tool_calls ?? []) {
          calls[call.index] ??= { id: call.id, function: { name: "", arguments: "" } };
          const slot = calls[call.index]!;
          slot.function.name += call.function?.name ?? "";
          slot.function.arguments += call.function?.arguments ?? "";
        }
      }
      if (chunk.usage) usage = chunk.usage as unknown as Usage;
    }
    return {
      content,
      finish,
      usage: usage!,
      calls,
      images,
      requestId: response.headers.get("x-request-id"),
      model: response.headers.get("x-service-model"),
    };
  }

  describe.each(ROWS)("$adapter", (row) => {
    const ask = (extra: Partial<OpenAI.ChatCompletionCreateParamsNonStreaming> = {}, tag = marker()) =>
      client.chat.completions
        .create({ model: row.model, messages: [{ role: "user", content: `Tell me about Paris ${tag}` }], ...extra })
        .withResponse();

    it("plain chat: content, stop, usage, cost on the ledger, answered by its own protocol", async () => {
      const tag = marker();
      const { data, response } = await ask({}, tag);
      expect(data.choices[0]!.message.content!.length).toBeGreaterThan(0);
      // The recorded Gemini answer stopped at its max tokens ("MAX_TOKENS" -> "length").
      expect(data.choices[0]!.finish_reason).toBe(row.persona === "gemini" ? "length" : "stop");
      const usage = data.usage as unknown as Usage;
      expect(usage.prompt_tokens).toBeGreaterThan(0);
      expect(usage.completion_tokens).toBeGreaterThan(0);
      // Only usage.cost differs from the upstream's body: OpenRouter's own cost is replaced, not kept beside it.
      expect(Object.keys(usage)).not.toContain("upstream_cost");
      expect(response.headers.get("x-service-model")).toBe(row.model);
      expect(await debit(response.headers.get("x-request-id"))).toEqual([costToNano(usage.cost)]);
      expect(await personasFor(tag)).toEqual([row.persona]);
    });

    it("streamed chat: content, a final usage chunk whose cost is on the ledger", async () => {
      const tag = marker();
      const answer = await streamed({
        model: row.model,
        stream: true,
        messages: [{ role: "user", content: `Tell me about Paris ${tag}` }],
      });
      expect(answer.content.length).toBeGreaterThan(0);
      expect(answer.finish).toBe("stop");
      expect(answer.model).toBe(row.model);
      expect(await debit(answer.requestId)).toEqual([costToNano(answer.usage.cost)]);
      expect(await personasFor(tag)).toEqual([row.persona]);
    });

    it("streamed and non-streamed answers agree: content, finish reason, usage", async () => {
      const usage = { prompt_tokens: 40, completion_tokens: 20 };
      const tag = marker();
      // One script per request, in turn (a Gemini body does not say whether it streams: its URL does).
      await stack.mockScript({ match: tag, times: 1, usage });
      const stream = await streamed({
        model: row.model,
        stream: true,
        messages: [{ role: "user", content: `Tell me about Paris ${tag}` }],
      });
      await stack.mockScript({ match: tag, times: 1, usage, assembled: true });
      const { data } = await ask({}, tag);
      expect(data.choices[0]!.message.content).toBe(stream.content);
      expect(data.choices[0]!.finish_reason).toBe(stream.finish);
      const whole = data.usage as unknown as Usage;
      expect([whole.prompt_tokens, whole.completion_tokens, whole.cost]).toEqual([
        stream.usage.prompt_tokens,
        stream.usage.completion_tokens,
        stream.usage.cost,
      ]);
      expect([whole.prompt_tokens, whole.completion_tokens]).toEqual([40, 20]);
    });

    it("tools: a tool call with JSON arguments, streamed and not, agreeing", async () => {
      const tag = marker();
      await stack.mockScript({ match: tag, times: 1, assembled: true });
      const { data } = await ask({ tools: [WEATHER_TOOL], tool_choice: "auto" }, tag);
      const choice = data.choices[0]!;
      expect(choice.finish_reason).toBe("tool_calls");
      const calls = choice.message.tool_calls as ToolCall[];
      expect(calls.length).toBeGreaterThan(0);
      for (const call of calls) expect(typeof JSON.parse(call.function.arguments)).toBe("object");
      const stream = await streamed({
        model: row.model,
        stream: true,
        tools: [WEATHER_TOOL],
        messages: [{ role: "user", content: `Weather in Paris? ${tag}` }],
      });
      expect(stream.finish).toBe("tool_calls");
      expect(stream.calls.map((call) => [call.function.name, JSON.parse(call.function.arguments)])).toEqual(
        calls.map((call) => [call.function.name, JSON.parse(call.function.arguments)]),
      );
    });

    it("parallel tools: every call well formed", async () => {
      const { data } = await ask({ tools: [WEATHER_TOOL, TIME_TOOL], parallel_tool_calls: true });
      const calls = data.choices[0]!.message.tool_calls as ToolCall[];
      expect(calls.length).toBeGreaterThanOrEqual(row.parallelTools ? 2 : 1);
      for (const call of calls) {
        expect(call.id).toBeTruthy();
        expect(typeof JSON.parse(call.function.arguments)).toBe("object");
      }
    });

    it("structured output: json_schema content parses as JSON", async () => {
      const { data } = await ask({ response_format: SCHEMA });
      expect(typeof JSON.parse(data.choices[0]!.message.content!)).toBe("object");
    });

    it("image input: the image reaches the upstream in its protocol's form, and is answered", async () => {
      const tag = marker();
      const { data } = await client.chat.completions
        .create({
          model: row.model,
          messages: [
            {
              role: "user",
              content: [
                { type: "text", text: `What is this? ${tag}` },
                { type: "image_url", image_url: { url: RED_DOT } },
              ],
            },
          ],
        })
        .withResponse();
      expect(data.choices[0]!.message.content!.length).toBeGreaterThan(0);
      const [sent] = await stack.mockRequestsWith(tag);
      const base64 = RED_DOT.slice(RED_DOT.indexOf(",") + 1);
      const forms: Record<string, unknown> = {
        openai: { type: "image_url", image_url: { url: RED_DOT } },
        openrouter: { type: "image_url", image_url: { url: RED_DOT } },
        anthropic: { type: "image", source: { type: "base64", media_type: "image/png", data: base64 } },
        gemini: { inlineData: { mimeType: "image/png", data: base64 } },
      };
      expect(JSON.stringify(sent!.body)).toContain(JSON.stringify(forms[row.persona]).slice(1, -1));
    });

    it.each([
      [429, OpenAI.RateLimitError, "rate_limit_error"],
      [500, OpenAI.InternalServerError, "upstream_error"],
      [503, OpenAI.InternalServerError, "upstream_error"],
      [400, OpenAI.BadRequestError, "upstream_rejected"],
    ])("error %i: a typed client error in the OpenAI shape, nothing billed", async (status, errorClass, type) => {
      const tag = marker();
      await stack.mockScript({ match: tag, times: 0, status });
      const error = (await ask({}, tag).catch((caught: unknown) => caught)) as InstanceType<typeof OpenAI.APIError>;
      expect(error).toBeInstanceOf(errorClass);
      expect([error.status, error.code, error.type]).toEqual([status, status, type]);
      expect(await personasFor(tag)).toContain(row.persona);
      expect(await debit(error.headers?.get("x-request-id") ?? null)).toEqual([]);
    });

    it("a failure in the middle of a stream: content, then the client's APIError, no success; billed for what was delivered", async () => {
      const tag = marker();
      await stack.mockScript({ match: tag, fault: "error-event-mid-stream" });
      const { data: stream, response } = await client.chat.completions
        .create({ model: row.model, stream: true, messages: [{ role: "user", content: `Tell me about Paris ${tag}` }] })
        .withResponse();
      let content = "";
      let cost: number | undefined;
      const error = await (async () => {
        for await (const chunk of stream) {
          content += chunk.choices[0]?.delta.content ?? "";
          if (chunk.usage) cost = (chunk.usage as unknown as Usage).cost;
        }
      })().catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(OpenAI.APIError);
      expect(content.length).toBeGreaterThan(0);
      expect(await debit(response.headers.get("x-request-id"))).toEqual([costToNano(cost!)]);
      expect(await personasFor(tag)).toEqual([row.persona]);
    });

    if (row.imagesOut) {
      const imageModel = row.imagesOut;
      it("image output: data URLs in message.images, streamed and not, billed", async () => {
        const { data, response } = await client.chat.completions
          .create({
            model: imageModel,
            modalities: ["image", "text"] as never,
            messages: [{ role: "user", content: `A red dot ${marker()}` }],
          })
          .withResponse();
        const images = (data.choices[0]!.message as { images?: { image_url: { url: string } }[] }).images ?? [];
        expect(images.length).toBeGreaterThan(0);
        for (const image of images) expect(image.image_url.url).toMatch(/^data:image\/[a-z]+;base64,/);
        const usage = data.usage as unknown as Usage;
        expect(await debit(response.headers.get("x-request-id"))).toEqual([costToNano(usage.cost)]);
        const stream = await streamed({
          model: imageModel,
          stream: true,
          modalities: ["image", "text"] as never,
          messages: [{ role: "user", content: `A red dot ${marker()}` }],
        });
        expect(stream.images).toBeGreaterThan(0);
      });

      it("image output goes only to image-capable models", async () => {
        const { response } = await client.chat.completions
          .create({
            model: "auto",
            modalities: ["image", "text"] as never,
            service: { route: [row.model, imageModel] },
            messages: [{ role: "user", content: `A red dot ${marker()}` }],
          } as never)
          .withResponse();
        expect(response.headers.get("x-service-model")).toBe(imageModel);
      });
    }

    if (row.embeddings) {
      const embeddingsModelId = row.embeddings;
      it("embeddings: floats and base64 (the client's default) decode to the same vectors, with usage.cost", async () => {
        const input = [`first ${marker()}`, "second"];
        const floats = await client.embeddings.create({ model: embeddingsModelId, input, encoding_format: "float" });
        const decoded = await client.embeddings.create({ model: embeddingsModelId, input }); // the client asks for base64 and decodes it
        expect(floats.data).toHaveLength(2);
        expect(floats.data[0]!.embedding.length).toBeGreaterThan(0);
        expect(decoded.data[0]!.embedding.map((value) => Math.fround(value))).toEqual(
          floats.data[0]!.embedding.map((value) => Math.fround(value)),
        );
        expect((floats.usage as unknown as Usage).cost).toBeGreaterThan(0);
      });
    }
  });

  it("a direct path that refuses our key (401) is left for OpenRouter at once, without a retry", async () => {
    const tag = marker();
    await stack.mockScript({ match: [tag, '"model":"claude-sonnet-4-20250514"'], times: 0, status: 401 });
    const response = await stack.post("/v1/chat/completions", project.key, {
      model: "anthropic/claude-sonnet-4",
      service: {},
      messages: [{ role: "user", content: tag }],
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { service: { reason: { attempts: { path: string; outcome: string }[] } } };
    expect(body.service.reason.attempts.map((attempt) => `${attempt.outcome} ${attempt.path}`)).toEqual([
      "http_401 anthropic",
      "ok openrouter",
    ]);
  });

  it("Gemini image output on a path priced per image: the images at that price, their tokens not again as output", async () => {
    const { data, response } = await client.chat.completions
      .create({
        model: "google/gemini-2.5-flash-image",
        modalities: ["image", "text"] as never,
        messages: [{ role: "user", content: `A red dot ${marker()}` }],
      })
      .withResponse();
    const usage = data.usage as unknown as Usage & { completion_tokens_details?: { image_tokens?: number } };
    const images = ((data.choices[0]!.message as { images?: unknown[] }).images ?? []).length;
    const imageTokens = usage.completion_tokens_details?.image_tokens ?? 0;
    expect(images).toBeGreaterThan(0);
    expect(imageTokens).toBeGreaterThan(0);
    // $0.30 / $2.50 per million tokens, $0.039 per image; rounded up once.
    const expected =
      (BigInt(usage.prompt_tokens) * 300_000_000n + BigInt(usage.completion_tokens - imageTokens) * 2_500_000_000n + 999_999n) /
        1_000_000n +
      BigInt(images) * 39_000_000n;
    expect(await debit(response.headers.get("x-request-id"))).toEqual([expected]);
  });

  it("an anthropic/... model whose direct path fails is served through OpenRouter, and the trace says so", async () => {
    const tag = marker();
    await stack.mockScript({ match: [tag, '"model":"claude-sonnet-4-20250514"'], times: 0, status: 529 });
    const response = await stack.post("/v1/chat/completions", project.key, {
      model: "anthropic/claude-sonnet-4",
      service: {},
      messages: [{ role: "user", content: tag }],
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { service: { reason: { path: string; attempts: { path: string; outcome: string }[] } } };
    expect(body.service.reason.path).toBe("openrouter");
    expect(body.service.reason.attempts.map((attempt) => `${attempt.outcome} ${attempt.path}`)).toEqual([
      "http_529 anthropic",
      "http_529 anthropic",
      "ok openrouter",
    ]);
    expect(response.headers.get("x-service-reason")).toContain("via openrouter, 3 attempts");
    expect(await personasFor(tag)).toEqual(["anthropic", "anthropic", "openrouter"]);
  });
});
