// The clouds as access paths, end to end (issue 34): official clients unchanged (openai's chat and
// Responses, @anthropic-ai/sdk, the Vercel AI SDK) through Bedrock (Signature V4, AWS's binary event
// stream), Vertex AI (OAuth2 tokens from the mock's token endpoint) and Azure OpenAI (api-key), streamed
// and not, with a tool round trip; usage.cost is the ledger's debit at the answering path's price.
// Vertex's embeddings (:predict) billed by its token counts. Then failover across clouds and between
// two regions of Bedrock, and credentials: a second data plane signs with a wrong AWS secret, holds
// a Vertex key file Google does not know and sends a wrong Azure key; a third takes AWS credentials from
// the container endpoint (EKS Pod Identity's) and fetches them once for 200 concurrent requests. The
// stack's own check at stop proves no AWS secret, Google token, signature or private key reached a log line.
import Anthropic from "@anthropic-ai/sdk";
import { createOpenAI } from "@ai-sdk/openai";
import { generateText, jsonSchema, streamText, tool } from "ai";
import { generateKeyPairSync } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { costToNano, type GatewayStack, marker, startStack, type TestProject } from "../harness/gateway-stack";
import { accessPath, chatModel, embeddingsModel, price } from "../support/catalogue-file";
import { OtlpReceiver } from "../support/otlp-receiver";

const CLAUDE = "anthropic/claude-sonnet-4";
const GPT = "openai/gpt-4o-mini";
const GEMINI = "google/gemini-2.5-flash";
const NOVA = "amazon/nova-lite";
const TITAN = "amazon/titan-embed-text-v2";
const VERTEX_EMBEDDING = "google/text-embedding-005";

// One flat rate per path (cache reads and writes at the input rate), each path's its own: a debit names the path that answered.
const flat = (input: string, output: string) =>
  price(input, output, { cached_input_per_m: input, cache_write_5m_per_m: input, cache_write_1h_per_m: input });
const RATES = {
  anthropic: ["3", "15"],
  bedrock: ["4", "20"],
  bedrockEu: ["4.4", "22"],
  vertex: ["5", "25"],
  openai: ["1", "2"],
  azure: ["2", "4"],
  gemini: ["1", "3"],
  nova: ["1", "4"],
} as const;

const CATALOGUE = {
  version: 1,
  defaults: { embeddings: TITAN },
  models: [
    chatModel(CLAUDE, [
      accessPath("anthropic", "claude-sonnet-4-20250514", "ANTHROPIC_API_KEY", flat(...RATES.anthropic)),
      { provider: "bedrock", upstream_model: "us.anthropic.claude-sonnet-4-20250514-v1:0", price: flat(...RATES.bedrock) },
      { provider: "vertex", upstream_model: "claude-sonnet-4@20250514", price: flat(...RATES.vertex) },
      // Another Bedrock region (data plane 0 only): a path of its own, named only by `service.paths`' tests.
      { provider: "bedrock-eu", upstream_model: "eu.anthropic.claude-sonnet-4-20250514-v1:0", price: flat(...RATES.bedrockEu) },
    ]),
    chatModel(GPT, [
      // Different upstream ids, so a mock script can fail the OpenAI path alone.
      accessPath("openai", "gpt-4o-mini-2024-07-18", "OPENAI_API_KEY", flat(...RATES.openai)),
      { provider: "azure", upstream_model: "gpt-4o-mini", price: flat(...RATES.azure) },
    ]),
    chatModel(GEMINI, [{ provider: "vertex", upstream_model: "gemini-2.5-flash", price: flat(...RATES.gemini) }]),
    chatModel(NOVA, [{ provider: "bedrock", upstream_model: "amazon.nova-lite-v1:0", price: flat(...RATES.nova) }]),
    embeddingsModel(TITAN, [{ provider: "bedrock", upstream_model: "amazon.titan-embed-text-v2:0", price: price("0.02", "0") }]),
    embeddingsModel(VERTEX_EMBEDDING, [{ provider: "vertex", upstream_model: "text-embedding-005", price: price("0.025", "0") }]),
  ],
};

const WEATHER = {
  type: "function" as const,
  function: {
    name: "get_current_weather",
    description: "The weather now",
    parameters: { type: "object" as const, properties: { location: { type: "string" as const } }, required: ["location"] },
  },
};

interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  cost: number;
}

/** A fetch for the Vercel AI SDK that adds the gateway's `service` block to every body (the SDK has no field for it). */
const withService =
  (service: Record<string, unknown>): typeof fetch =>
  (input, init) =>
    fetch(input, typeof init?.body === "string" ? { ...init, body: JSON.stringify({ ...JSON.parse(init.body), service }) } : init);

/** The nano-USD of `prompt` input and `completion` output tokens at a flat path rate (USD per M tokens: nano per token = rate x 1000). */
const atRate = ([input, output]: readonly [string, string], prompt: number, completion: number): bigint =>
  BigInt(prompt) * BigInt(Math.round(Number(input) * 1000)) + BigInt(completion) * BigInt(Math.round(Number(output) * 1000));

describe("the clouds as access paths", () => {
  let stack: GatewayStack;
  let project: TestProject;
  let openai: OpenAI;

  let keyDir: string;
  // Every data plane traces every request: the spans are searched for credentials at the end.
  let receiver: OtlpReceiver;

  beforeAll(async () => {
    keyDir = mkdtempSync(path.join(tmpdir(), "cloud-paths-"));
    receiver = await OtlpReceiver.start();
    stack = await startStack({
      backend: "postgresql",
      clouds: true,
      mockAsProviders: ["anthropic"],
      dataPlanes: 3,
      dataPlaneEnv: {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/json",
        OTEL_BSP_SCHEDULE_DELAY: "100",
      },
      dataPlaneEnvs: (mockUrl): Record<string, string>[] => [
        // Data plane 0: Bedrock in a second region too, as its own provider.
        { BEDROCK_EU_PROTOCOL: "bedrock", BEDROCK_EU_REGION: "eu-central-1", BEDROCK_EU_BASE_URL: `${mockUrl}/bedrock` },
        // Data plane 1: credentials the clouds refuse.
        {
          AWS_SECRET_ACCESS_KEY: "not-the-mock-secret",
          AZURE_API_KEY: "not-the-azure-key",
          VERTEX_CREDENTIALS_FILE: strangerKeyFile(`${mockUrl}/vertex/token`),
        },
        // Data plane 2: no AWS keys in the environment; the chain finds the container endpoint.
        { AWS_ACCESS_KEY_ID: "", AWS_SECRET_ACCESS_KEY: "", AWS_CONTAINER_CREDENTIALS_FULL_URI: `${mockUrl}/bedrock/credentials` },
      ],
    });
    await stack.loadCatalogue(CATALOGUE);
    project = await stack.createProject({ balanceUsd: "20.00" });
    openai = new OpenAI({ apiKey: project.key, baseURL: `${stack.url}/v1`, maxRetries: 0 });
  });

  afterAll(async () => {
    await stack?.stop();
    await receiver?.close();
    rmSync(keyDir, { recursive: true, force: true });
  });

  /** A service-account key file whose key Google (the mock) never issued, pointing at the mock's token endpoint. */
  function strangerKeyFile(tokenUri: string): string {
    const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const file = path.join(keyDir, "stranger.json");
    const account = {
      type: "service_account",
      project_id: "mock-project",
      private_key_id: "stranger",
      private_key: privateKey.export({ type: "pkcs8", format: "pem" }),
      client_email: "stranger@mock-project.iam.gserviceaccount.com",
      token_uri: tokenUri,
    };
    writeFileSync(file, JSON.stringify(account));
    return file;
  }

  /** The ledger's debits under one request id, in nano-USD (negative). */
  async function debitsFor(requestId: string | null | undefined): Promise<bigint[]> {
    expect(requestId).toBeTruthy();
    return (await stack.ledger(project.projectId))
      .filter((entry) => entry.request_id === requestId)
      .map((entry) => BigInt(entry.amount.nano));
  }

  /** Billed once, at this path's rate, and usage.cost says the same. */
  async function expectBilled(requestId: string | null, usage: ChatUsage, rate: readonly [string, string]): Promise<void> {
    const expected = atRate(rate, usage.prompt_tokens, usage.completion_tokens);
    expect(costToNano(usage.cost)).toBe(expected);
    expect(await debitsFor(requestId)).toEqual([-expected]);
  }

  /** The mock personas that saw requests carrying this marker, in order. */
  async function personasFor(tag: string): Promise<string[]> {
    return (await stack.mockRequests())
      .filter((request) => JSON.stringify(request.body).includes(tag) || (request.responseText ?? "").includes(tag))
      .map((request) => (request as unknown as { persona: string }).persona);
  }

  describe("Bedrock", () => {
    it("Claude through InvokeModel, openai chat with a tool round trip, signed with Signature V4", async () => {
      const tag = marker();
      const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: "user", content: `Weather in Boston? ${tag}` }];
      const first = await openai.chat.completions
        .create({ model: CLAUDE, messages, tools: [WEATHER], service: { paths: ["bedrock"] } } as never)
        .withResponse();
      const call = first.data.choices[0]!.message.tool_calls![0]! as OpenAI.ChatCompletionMessageFunctionToolCall;
      // The mock answers with its recorded tool call (its own tool name), as a finished tool turn.
      expect(call.function.name).toBeTruthy();
      expect(first.data.choices[0]!.finish_reason).toBe("tool_calls");
      expect(first.response.headers.get("x-service-reason")).toMatch(/via bedrock/);
      await expectBilled(first.response.headers.get("x-request-id"), first.data.usage as unknown as ChatUsage, RATES.bedrock);

      messages.push(first.data.choices[0]!.message, { role: "tool", tool_call_id: call.id, content: '{"temperature": 21}' });
      const second = await openai.chat.completions
        .create({ model: CLAUDE, messages, tools: [WEATHER], service: { paths: ["bedrock"] } } as never)
        .withResponse();
      expect(second.data.choices[0]!.message.content).toBeTruthy();
      await expectBilled(second.response.headers.get("x-request-id"), second.data.usage as unknown as ChatUsage, RATES.bedrock);

      const seen = (await stack.mockRequestsWith(tag)).filter((request) => request.path.startsWith("/bedrock/"));
      expect(seen.length).toBe(2);
      expect(seen[0]!.path).toBe("/bedrock/model/us.anthropic.claude-sonnet-4-20250514-v1%3A0/invoke");
      expect(seen[0]!.headers.authorization).toMatch(
        /^AWS4-HMAC-SHA256 Credential=AKIDMOCKBEDROCK\/\d{8}\/us-east-1\/bedrock\/aws4_request/,
      );
      expect(seen[0]!.body).toMatchObject({ anthropic_version: "bedrock-2023-05-31" });
      expect(seen[0]!.body).not.toHaveProperty("model");
    });

    it("streams Claude from the binary event stream; the last chunk's usage.cost is the debit", async () => {
      const { data: stream, response } = await openai.chat.completions
        .create({ model: CLAUDE, stream: true, messages: [{ role: "user", content: marker() }], service: { paths: ["bedrock"] } } as never)
        .withResponse();
      let text = "";
      let usage: ChatUsage | undefined;
      for await (const chunk of stream as unknown as AsyncIterable<OpenAI.ChatCompletionChunk>) {
        text += chunk.choices[0]?.delta.content ?? "";
        if (chunk.usage) usage = chunk.usage as unknown as ChatUsage;
      }
      expect(text.length).toBeGreaterThan(10);
      await expectBilled(response.headers.get("x-request-id"), usage!, RATES.bedrock);
    });

    it("a Messages client reaches Claude on Bedrock natively, whole and streamed", async () => {
      const anthropic = new Anthropic({ apiKey: project.key, baseURL: stack.url, maxRetries: 0 });
      const tag = marker();
      const { data: message, response } = await anthropic.messages
        .create({ model: CLAUDE, max_tokens: 256, messages: [{ role: "user", content: tag }], service: { paths: ["bedrock"] } } as never)
        .withResponse();
      expect((message as Anthropic.Message).id).toMatch(/^msg_bdrk_/);
      const usage = (message as Anthropic.Message).usage as Anthropic.Usage & { cost: number };
      expect(await debitsFor(response.headers.get("x-request-id"))).toEqual([-costToNano(usage.cost)]);

      const stream = anthropic.messages.stream({
        model: CLAUDE,
        max_tokens: 256,
        messages: [{ role: "user", content: marker() }],
        service: { paths: ["bedrock"] },
      } as never);
      const final = await stream.finalMessage();
      expect(final.id).toMatch(/^msg_bdrk_/);
      expect(final.content.some((block) => block.type === "text" && block.text.length > 0)).toBe(true);
    });

    it("Amazon Nova through Converse with the Vercel AI SDK: a tool call, then streamed text", async () => {
      const provider = createOpenAI({ apiKey: project.key, baseURL: `${stack.url}/v1` });
      const result = await generateText({
        model: provider.chat(NOVA),
        prompt: `Weather in Paris? ${marker()}`,
        tools: { get_current_weather: tool({ description: "The weather now", inputSchema: jsonSchema(WEATHER.function.parameters) }) },
        maxRetries: 0,
      });
      expect(result.toolCalls.length).toBe(1); // the mock's recorded Converse tool call
      expect(result.finishReason).toBe("tool-calls");
      const streamed = streamText({ model: provider.chat(NOVA), prompt: marker(), maxRetries: 0 });
      expect((await streamed.text).length).toBeGreaterThan(0);
      expect((await streamed.response).headers?.["x-service-reason"]).toMatch(/via bedrock/);
    });

    it("Titan embeddings through InvokeModel", async () => {
      const embedding = await openai.embeddings.create({ model: TITAN, input: `one input ${marker()}` });
      expect(embedding.data[0]!.embedding.length).toBeGreaterThan(0);
      expect(embedding.usage.prompt_tokens).toBeGreaterThan(0);
    });
  });

  describe("Vertex AI", () => {
    it("Claude on Vertex: a Messages client passes through natively, with a tool round trip", async () => {
      const anthropic = new Anthropic({ apiKey: project.key, baseURL: stack.url, maxRetries: 0 });
      const tag = marker();
      const tools: Anthropic.Tool[] = [
        { name: "get_current_weather", input_schema: { type: "object", properties: { location: { type: "string" } } } },
      ];
      const messages: Anthropic.MessageParam[] = [{ role: "user", content: `Weather in Rome? ${tag}` }];
      const first = (await anthropic.messages.create({
        model: CLAUDE,
        max_tokens: 256,
        messages,
        tools,
        service: { paths: ["vertex"] },
      } as never)) as Anthropic.Message;
      const use = first.content.find((block): block is Anthropic.ToolUseBlock => block.type === "tool_use");
      expect(use?.name).toBeTruthy();
      messages.push(
        { role: "assistant", content: first.content },
        { role: "user", content: [{ type: "tool_result", tool_use_id: use!.id, content: "21 C" }] },
      );
      const second = (await anthropic.messages.create({
        model: CLAUDE,
        max_tokens: 256,
        messages,
        tools,
        service: { paths: ["vertex"] },
      } as never)) as Anthropic.Message;
      expect(second.id).toMatch(/^msg_vrtx_/);

      const seen = (await stack.mockRequestsWith(tag)).filter((request) => request.path.startsWith("/vertex/"));
      expect(seen[0]!.path).toBe(
        "/vertex/v1/projects/mock-project/locations/us-east5/publishers/anthropic/models/claude-sonnet-4@20250514:rawPredict",
      );
      expect(seen[0]!.headers.authorization).toMatch(/^Bearer ya29\./);
      expect(seen[0]!.body).toMatchObject({ anthropic_version: "vertex-2023-10-16" });
    });

    it("Claude on Vertex streamed to an openai chat client: usage.cost is the debit at Vertex's rate", async () => {
      const { data: stream, response } = await openai.chat.completions
        .create({ model: CLAUDE, stream: true, messages: [{ role: "user", content: marker() }], service: { paths: ["vertex"] } } as never)
        .withResponse();
      let usage: ChatUsage | undefined;
      for await (const chunk of stream as unknown as AsyncIterable<OpenAI.ChatCompletionChunk>)
        if (chunk.usage) usage = chunk.usage as unknown as ChatUsage;
      await expectBilled(response.headers.get("x-request-id"), usage!, RATES.vertex);
    });

    it("embeddings on Vertex's text embedding model (:predict): Vertex's token counts are billed", async () => {
      const tag = marker();
      // Vertex counts each input's tokens; the mock's first count is scripted so the bill is known.
      await stack.mockScript({ match: tag, usage: { prompt_tokens: 7 } });
      const { data, response } = await openai.embeddings
        .create({ model: VERTEX_EMBEDDING, input: [`first ${tag}`, "second input"], encoding_format: "float" })
        .withResponse();
      expect(data.data.map((item) => [item.index, item.embedding.length])).toEqual([
        [0, 768],
        [1, 768],
      ]);
      expect(data.usage.prompt_tokens).toBe(7 + Math.ceil("second input".length / 4));
      expect(await debitsFor(response.headers.get("x-request-id"))).toEqual([-atRate(["0.025", "0"], data.usage.prompt_tokens, 0)]);
      const seen = (await stack.mockRequestsWith(tag))[0]!;
      expect(seen.path).toBe("/vertex/v1/projects/mock-project/locations/us-east5/publishers/google/models/text-embedding-005:predict");
      expect(seen.body).toEqual({ instances: [{ content: `first ${tag}` }, { content: "second input" }] });
    });

    it("Gemini on Vertex: openai chat whole and streamed, and the Responses client", async () => {
      const whole = await openai.chat.completions.create({ model: GEMINI, messages: [{ role: "user", content: marker() }] }).withResponse();
      expect(whole.data.choices[0]!.message.content).toBeTruthy();
      await expectBilled(whole.response.headers.get("x-request-id"), whole.data.usage as unknown as ChatUsage, RATES.gemini);

      const provider = createOpenAI({ apiKey: project.key, baseURL: `${stack.url}/v1` });
      const streamed = streamText({ model: provider.chat(GEMINI), prompt: marker(), maxRetries: 0 });
      expect((await streamed.text).length).toBeGreaterThan(0);

      const response = await openai.responses.create({ model: GEMINI, input: marker() });
      expect(response.output_text.length).toBeGreaterThan(0);
    });
  });

  describe("Azure OpenAI", () => {
    it("openai chat with a tool round trip on the deployments form; Azure's filter verdicts relayed to a chat client", async () => {
      const tag = marker();
      const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: "user", content: `Weather in Oslo? ${tag}` }];
      const first = await openai.chat.completions
        .create({ model: GPT, messages, tools: [WEATHER], service: { paths: ["azure"] } } as never)
        .withResponse();
      const call = first.data.choices[0]!.message.tool_calls![0]! as OpenAI.ChatCompletionMessageFunctionToolCall;
      await expectBilled(first.response.headers.get("x-request-id"), first.data.usage as unknown as ChatUsage, RATES.azure);
      messages.push(first.data.choices[0]!.message, { role: "tool", tool_call_id: call.id, content: "3 C" });
      const second = await openai.chat.completions.create({ model: GPT, messages, service: { paths: ["azure"] } } as never);
      expect(second.choices[0]!.message.content).toBeTruthy();
      expect(second).toHaveProperty("prompt_filter_results");

      const seen = (await stack.mockRequestsWith(tag)).filter((request) => request.path.startsWith("/azure/"));
      expect(seen[0]!.path).toBe("/azure/openai/deployments/gpt-4o-mini/chat/completions");
      expect(seen[0]!.headers["api-key"]).toBe("upstream-secret-key");
    });

    it("streams to the chat client and to the Responses client; the Responses stream holds no empty-id event", async () => {
      const { data: stream, response } = await openai.chat.completions
        .create({ model: GPT, stream: true, messages: [{ role: "user", content: marker() }], service: { paths: ["azure"] } } as never)
        .withResponse();
      let usage: ChatUsage | undefined;
      for await (const chunk of stream as unknown as AsyncIterable<OpenAI.ChatCompletionChunk>)
        if (chunk.usage) usage = chunk.usage as unknown as ChatUsage;
      await expectBilled(response.headers.get("x-request-id"), usage!, RATES.azure);

      const events = await openai.responses.create({ model: GPT, input: marker(), stream: true, service: { paths: ["azure"] } } as never);
      let completed: OpenAI.Responses.Response | undefined;
      for await (const event of events as unknown as AsyncIterable<OpenAI.Responses.ResponseStreamEvent>)
        if (event.type === "response.completed") completed = event.response;
      expect(completed?.model).toMatch(/^gpt-4o-mini/); // the deployment's model, never the verdict-only chunk's ""
      expect(completed?.output_text ?? completed?.output.length).toBeTruthy();
    });
  });

  describe("every client through every cloud, whole and streamed: usage.cost is the ledger's debit", () => {
    /** A model whose answer comes through one cloud, by `service.paths`. */
    const THROUGH = [
      [CLAUDE, "bedrock"],
      [GEMINI, "vertex"],
      [GPT, "azure"],
    ] as const;

    for (const [model, cloud] of THROUGH) {
      it(`${cloud}: openai Responses, @anthropic-ai/sdk and the Vercel AI SDK`, async () => {
        const service = { paths: [cloud] };
        for (const stream of [false, true]) {
          const { data, response } = await openai.responses.create({ model, input: marker(), stream, service } as never).withResponse();
          let usage: { cost: number } | undefined;
          if (stream) {
            for await (const event of data as unknown as AsyncIterable<OpenAI.Responses.ResponseStreamEvent>)
              if (event.type === "response.completed") usage = event.response.usage as unknown as { cost: number };
          } else usage = (data as OpenAI.Responses.Response).usage as unknown as { cost: number };
          expect(response.headers.get("x-service-reason"), `responses ${cloud} stream=${stream}`).toMatch(new RegExp(`via ${cloud}`));
          expect(await debitsFor(response.headers.get("x-request-id"))).toEqual([-costToNano(usage!.cost)]);
        }

        const anthropic = new Anthropic({ apiKey: project.key, baseURL: stack.url, maxRetries: 0 });
        const whole = await anthropic.messages
          .create({ model, max_tokens: 256, messages: [{ role: "user", content: marker() }], service } as never)
          .withResponse();
        const cost = ((whole.data as Anthropic.Message).usage as unknown as { cost: number }).cost;
        expect(await debitsFor(whole.response.headers.get("x-request-id"))).toEqual([-costToNano(cost)]);
        const streamed = await anthropic.messages
          .stream({ model, max_tokens: 256, messages: [{ role: "user", content: marker() }], service } as never)
          .finalMessage();
        expect(streamed.content.length, `messages stream ${cloud}`).toBeGreaterThan(0);

        const provider = createOpenAI({ apiKey: project.key, baseURL: `${stack.url}/v1`, fetch: withService(service) });
        const generated = await generateText({ model: provider.chat(model), prompt: marker(), maxRetries: 0 });
        expect(generated.text.length, `ai sdk ${cloud}`).toBeGreaterThan(0);
        expect(generated.response.headers?.["x-service-reason"]).toMatch(new RegExp(`via ${cloud}`));
        const text = await streamText({ model: provider.chat(model), prompt: marker(), maxRetries: 0 }).text;
        expect(text.length, `ai sdk stream ${cloud}`).toBeGreaterThan(0);
      });
    }
  });

  describe("failover across clouds", () => {
    it("Claude with Anthropic overloaded (529) is answered by Bedrock, billed once at Bedrock's rate", async () => {
      const tag = marker();
      await stack.mockScript({
        match: [tag, '"model":"claude-sonnet-4-20250514"'],
        times: 10,
        errorFixture: "anthropic.error.529.overloaded_error",
      });
      const answer = await openai.chat.completions
        .create({ model: CLAUDE, messages: [{ role: "user", content: tag }], service: {} } as never)
        .withResponse();
      expect(answer.response.headers.get("x-service-reason")).toMatch(/via bedrock, \d+ attempts$/);
      const attempts = (answer.data as unknown as { service: { reason: { attempts: { path: string; outcome: string }[] } } }).service.reason
        .attempts;
      expect(attempts[0]).toMatchObject({ path: "anthropic", outcome: "http_529" });
      expect(attempts.at(-1)).toMatchObject({ path: "bedrock", outcome: "ok" });
      await expectBilled(answer.response.headers.get("x-request-id"), answer.data.usage as unknown as ChatUsage, RATES.bedrock);
    });

    it("with Anthropic overloaded and Bedrock throttling, Vertex answers", async () => {
      const tag = marker();
      await stack.mockScript({
        match: [tag, '"model":"claude-sonnet-4-20250514"'],
        times: 10,
        errorFixture: "anthropic.error.529.overloaded_error",
      });
      await stack.mockScript({ match: [tag, "bedrock-2023-05-31"], times: 10, status: 429 });
      const answer = await openai.chat.completions
        .create({ model: CLAUDE, messages: [{ role: "user", content: tag }], service: {} } as never)
        .withResponse();
      const attempts = (answer.data as unknown as { service: { reason: { attempts: { path: string; outcome: string }[] } } }).service.reason
        .attempts;
      expect(attempts.map((attempt) => attempt.path)).toEqual(expect.arrayContaining(["anthropic", "bedrock", "vertex"]));
      expect(attempts.find((attempt) => attempt.path === "bedrock")?.outcome).toBe("http_429");
      expect(answer.response.headers.get("x-service-reason")).toMatch(/via vertex/);
      await expectBilled(answer.response.headers.get("x-request-id"), answer.data.usage as unknown as ChatUsage, RATES.vertex);
    });

    it("Bedrock's quota (ServiceQuotaExceededException, a 400) is the path's, not the request's: Vertex answers", async () => {
      const tag = marker();
      await stack.mockScript({
        match: [tag, "bedrock-2023-05-31"],
        times: 10,
        status: 400,
        headers: { "x-amzn-errortype": "ServiceQuotaExceededException:http://internal.amazon.com/coral/com.amazon.bedrock/" },
      });
      const answer = await openai.chat.completions
        .create({ model: CLAUDE, messages: [{ role: "user", content: tag }], service: { paths: ["bedrock", "vertex"] } } as never)
        .withResponse();
      const attempts = (answer.data as unknown as { service: { reason: { attempts: { path: string; outcome: string }[] } } }).service.reason
        .attempts;
      expect(attempts.map((attempt) => [attempt.path, attempt.outcome])).toEqual([
        ["bedrock", "http_400"],
        ["vertex", "ok"],
      ]);
    });

    it("GPT with OpenAI down is answered by Azure", async () => {
      const tag = marker();
      await stack.mockScript({ match: [tag, '"model":"gpt-4o-mini-2024-07-18"'], times: 10, fault: "reset-before-headers" });
      const answer = await openai.chat.completions
        .create({ model: GPT, messages: [{ role: "user", content: tag }], service: {} } as never)
        .withResponse();
      expect(answer.response.headers.get("x-service-reason")).toMatch(/via azure/);
      await expectBilled(answer.response.headers.get("x-request-id"), answer.data.usage as unknown as ChatUsage, RATES.azure);
      expect(await personasFor(tag)).toContain("azure");
    });

    it("Bedrock throttling in one region is answered by Bedrock in another, signed for that region", async () => {
      const tag = marker();
      // Both regions send the same body: the US inference profile in the URL tells them apart.
      await stack.mockScript({ match: tag, path: "/model/us.anthropic.", times: 10, status: 429 });
      const answer = await openai.chat.completions
        .create({ model: CLAUDE, messages: [{ role: "user", content: tag }], service: { paths: ["bedrock", "bedrock-eu"] } } as never)
        .withResponse();
      const attempts = (answer.data as unknown as { service: { reason: { attempts: { path: string; outcome: string }[] } } }).service.reason
        .attempts;
      // A throttled path is retried before the switch (routing.md), as any path is.
      expect(attempts.at(-1)).toEqual(expect.objectContaining({ path: "bedrock-eu", outcome: "ok" }));
      const before = attempts.slice(0, -1);
      expect(before.length).toBeGreaterThan(0);
      expect(before.every((attempt) => attempt.path === "bedrock" && attempt.outcome === "http_429")).toBe(true);
      expect(answer.response.headers.get("x-service-reason")).toMatch(/via bedrock-eu/);
      await expectBilled(answer.response.headers.get("x-request-id"), answer.data.usage as unknown as ChatUsage, RATES.bedrockEu);
      const seen = await stack.mockRequestsWith(tag);
      expect(seen.map((request) => request.path)).toEqual([
        ...before.map(() => "/bedrock/model/us.anthropic.claude-sonnet-4-20250514-v1%3A0/invoke"),
        "/bedrock/model/eu.anthropic.claude-sonnet-4-20250514-v1%3A0/invoke",
      ]);
      expect(seen.at(-1)!.headers.authorization).toMatch(
        /^AWS4-HMAC-SHA256 Credential=AKIDMOCKBEDROCK\/\d{8}\/eu-central-1\/bedrock\/aws4_request/,
      );
    });
  });

  describe("credentials a cloud refuses (data plane 1), and a refresh under load (data plane 2)", () => {
    /** Data plane 1's answer for Claude on `paths`, and the attempts its trace lists. */
    async function onRefusingPlane(paths: string[]) {
      const response = await stack.post(
        "/v1/chat/completions",
        project.key,
        { model: CLAUDE, messages: [{ role: "user", content: marker() }], service: { paths } },
        1,
      );
      const body = (await response.json()) as { service?: { reason: { attempts: { path: string; outcome: string }[] } } };
      return { response, attempts: body.service?.reason.attempts ?? [] };
    }

    it("a wrong AWS secret (Bedrock's 403) and an unknown Google key (no token) fail over; the caller sees no credential detail", async () => {
      const signed = await onRefusingPlane(["bedrock", "anthropic"]);
      expect(signed.response.status).toBe(200);
      expect(signed.attempts.map((attempt) => [attempt.path, attempt.outcome])).toEqual([
        ["bedrock", "http_403"],
        ["anthropic", "ok"],
      ]);
      const token = await onRefusingPlane(["vertex", "anthropic"]);
      expect(token.response.status).toBe(200);
      expect(token.attempts.map((attempt) => [attempt.path, attempt.outcome])).toEqual([
        ["vertex", "credentials_unavailable"],
        ["anthropic", "ok"],
      ]);
    });

    it("with no other path the caller gets the gateway's own error, naming no key, signature or cloud detail", async () => {
      for (const [model, path] of [
        [CLAUDE, "bedrock"],
        [CLAUDE, "vertex"],
        [GPT, "azure"],
      ] as const) {
        const response = await stack.post(
          "/v1/chat/completions",
          project.key,
          { model, messages: [{ role: "user", content: marker() }], service: { paths: [path] } },
          1,
        );
        // The gateway's own error for the path's failure: its status kept (a refused credential), or 504 (none could be had).
        expect([response.status, ((await response.clone().json()) as { error: { type: string } }).error.type], path).toEqual(
          { bedrock: [403, "upstream_rejected"], vertex: [504, "upstream_error"], azure: [401, "upstream_rejected"] }[path],
        );
        const text = await response.text();
        for (const secret of [
          "not-the-mock-secret",
          "not-the-azure-key",
          "AKIDMOCKBEDROCK",
          "Signature",
          "signature",
          "subscription key",
          "x-amzn",
          "invalid_grant",
          "stranger",
        ])
          expect(text, `${path} error names ${secret}`).not.toContain(secret);
      }
      for (const dataPlane of stack.dataPlanes) {
        const metrics = await (await fetch(`${dataPlane.ready.metrics}/metrics`)).text();
        for (const secret of ["not-the-mock-secret", "mock-bedrock-secret-key", "upstream-secret-key", "ya29.", "stranger"])
          expect(metrics).not.toContain(secret);
      }
    });

    it("200 concurrent requests on a plane whose AWS credentials come from the container endpoint fetch them once", async () => {
      const issued = async () => ((await (await fetch(`${stack.mockUrl}/_mock/bedrock/credentials`)).json()) as { issued: number }).issued;
      const before = await issued();
      const answers = await Promise.all(
        Array.from({ length: 200 }, () =>
          stack.post("/v1/chat/completions", project.key, { model: NOVA, messages: [{ role: "user", content: marker() }] }, 2),
        ),
      );
      expect(answers.map((answer) => answer.status)).toEqual(Array(200).fill(200));
      await Promise.all(answers.map((answer) => answer.arrayBuffer()));
      expect(await issued()).toBe(before + 1);
    });
  });

  it("no span of any data plane holds a credential, token or signature (every request above was traced)", async () => {
    await expect
      .poll(() => receiver.spans.some((span) => span.name.includes("bedrock") || JSON.stringify(span).includes("bedrock")), {
        timeout: 5_000,
      })
      .toBe(true);
    const spans = JSON.stringify(receiver.spans);
    for (const secret of [
      "mock-bedrock-secret-key",
      "not-the-mock-secret",
      "not-the-azure-key",
      "upstream-secret-key",
      "ya29.",
      "Signature=",
      "IQoJmock",
      "PRIVATE KEY",
      "AWS4-HMAC-SHA256",
    ])
      expect(spans, `a span holds ${secret.slice(0, 8)}...`).not.toContain(secret);
  });
});
