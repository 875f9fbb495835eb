// GeminiAdapter request and whole-answer translation. Expected upstream bodies
// are the recorded Gemini requests in src/providers/gemini/__fixtures__ (the OpenAI
// request that should produce each is written here); answers are the recorded Gemini
// responses. Streams: gemini-adapter.stream.test.ts; errors: gemini-adapter.errors.test.ts.
import { describe, expect, it } from "vitest";
import { GatewayError } from "../../src/errors";
import type { RequestContext, ResponseContext, UpstreamCall } from "../../src/providers/provider-adapter";
import { GeminiAdapter } from "../../src/providers/gemini/gemini-adapter";
import { fixtures } from "../support/fixture";

/** A recorded body: Gemini's own, or OpenAI's (openai.*) from the OpenAI-compatible fixtures. */
const wire = <T = Record<string, unknown>>(file: string): T =>
  fixtures(file.startsWith("openai.") ? "openai-compatible" : "gemini").json<T>(file);

const adapter = new GeminiAdapter();
// maxOutputTokens 0 (unknown): the recorded requests set no default; the default is tested on its own below.
const requestContext: RequestContext = { upstreamModel: "gemini-2.5-flash", apiKey: "AIza-test", maxOutputTokens: 0 };
const responseContext: ResponseContext = { id: "chatcmpl-gateway", created: 1_764_000_000, model: "gemini-2.5-flash" };

const chat = (body: Record<string, unknown>, context: Partial<RequestContext> = {}): UpstreamCall =>
  adapter.request("chat", body, { ...requestContext, ...context });
const sentBody = (body: Record<string, unknown>): Record<string, unknown> => JSON.parse(chat(body).body) as Record<string, unknown>;

/** A recorded request as this adapter writes it: the SDK's empty `generationConfig` and its `role` on the system instruction are left out (both optional). */
function asWritten(recorded: Record<string, unknown>): Record<string, unknown> {
  const copy = structuredClone(recorded);
  if (JSON.stringify(copy.generationConfig) === "{}") delete copy.generationConfig;
  if (typeof copy.systemInstruction === "object" && copy.systemInstruction !== null)
    delete (copy.systemInstruction as Record<string, unknown>).role;
  return copy;
}

describe("GeminiAdapter basics", () => {
  it("is the gemini protocol and offers chat and embeddings", () => {
    expect(adapter.protocol).toBe("gemini");
    expect(adapter.supports("chat")).toBe(true);
    expect(adapter.supports("embeddings")).toBe(true);
  });

  it("calls generateContent, or streamGenerateContent?alt=sse for streams, with the key in x-goog-api-key", () => {
    const body = { model: "gemini", messages: [{ role: "user", content: "Hi" }] };
    expect(chat(body)).toMatchObject({
      path: "/models/gemini-2.5-flash:generateContent",
      headers: { "content-type": "application/json", "x-goog-api-key": "AIza-test" },
    });
    expect(chat({ ...body, stream: true }).path).toBe("/models/gemini-2.5-flash:streamGenerateContent?alt=sse");
    expect(chat({ ...body, stream: "yes" }).path).toBe("/models/gemini-2.5-flash:generateContent");
  });

  it("sends no key header without a key, and uses a full resource name as given", () => {
    const call = chat({ messages: [{ role: "user", content: "Hi" }] }, { apiKey: undefined, upstreamModel: "tunedModels/my-tune" });
    expect(call.headers).toEqual({ "content-type": "application/json" });
    expect(call.path).toBe("/tunedModels/my-tune:generateContent");
  });
});

describe("GeminiAdapter chat requests against recorded Gemini requests", () => {
  it("plain: one user turn, n and max_tokens (gemini.generateContent.request.json, minus its thinkingConfig)", () => {
    const recorded = wire("gemini.generateContent.request.json");
    delete (recorded.generationConfig as Record<string, unknown>).thinkingConfig; // no OpenAI field maps to a thinking budget
    expect(
      sentBody({ model: "gemini-2.5-flash", messages: [{ role: "user", content: "why is the sky blue?" }], n: 1, max_tokens: 200 }),
    ).toEqual(recorded);
  });

  it("system instruction (gemini.generateContent.system_instruction.request.json)", () => {
    const body = {
      messages: [
        { role: "system", content: "I say high you say low" },
        { role: "user", content: "high" },
      ],
    };
    expect(sentBody(body)).toEqual(asWritten(wire("gemini.generateContent.system_instruction.request.json")));
  });

  it("a developer message is a system instruction too (openai.chat.request.json)", () => {
    expect(sentBody(wire("openai.chat.request.json"))).toEqual({
      contents: [{ role: "user", parts: [{ text: "Hello!" }] }],
      systemInstruction: { parts: [{ text: "You are a helpful assistant." }] },
    });
  });

  it("streamed plain request (gemini.streamGenerateContent.request.json)", () => {
    const call = chat({
      messages: [{ role: "user", content: "why is the sky blue?" }],
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(call.path).toBe("/models/gemini-2.5-flash:streamGenerateContent?alt=sse");
    expect(JSON.parse(call.body)).toEqual(asWritten(wire("gemini.streamGenerateContent.request.json")));
  });

  it("json_schema: responseMimeType + responseJsonSchema, schema passed whole (gemini.generateContent.json_schema.request.json)", () => {
    const recorded = wire<{ generationConfig: { responseJsonSchema: unknown } }>("gemini.generateContent.json_schema.request.json");
    const body = {
      messages: [{ role: "user", content: "populate the following object" }],
      response_format: {
        type: "json_schema",
        json_schema: { name: "object", strict: true, schema: recorded.generationConfig.responseJsonSchema },
      },
    };
    expect(sentBody(body)).toEqual(recorded);
  });

  it("json_schema from the OpenAI recording keeps additionalProperties and drops name/strict", () => {
    const openAi = wire<{ response_format: { json_schema: { schema: unknown } } }>("openai.chat.json_schema.request.json");
    expect(sentBody(openAi).generationConfig).toEqual({
      responseMimeType: "application/json",
      responseJsonSchema: openAi.response_format.json_schema.schema,
    });
  });

  it("tools + tool_choice auto: parametersJsonSchema as sent, $schema and additionalProperties kept (gemini.generateContent.tools.request.json)", () => {
    const recorded = wire<{ tools: { functionDeclarations: Record<string, unknown>[] }[]; contents: unknown; toolConfig: unknown }>(
      "gemini.generateContent.tools.request.json",
    );
    const declarations = recorded.tools.flatMap((tool) => tool.functionDeclarations);
    const body = {
      messages: [{ role: "user", content: "Use the printer to print a simple word: hello in blue, and beep with the beeper" }],
      tools: declarations.map((declaration) => ({
        type: "function",
        function: { name: declaration.name, parameters: declaration.parametersJsonSchema, strict: true },
      })),
      tool_choice: "auto",
      parallel_tool_calls: true,
    };
    // The recording puts each declaration in its own Tool; one Tool holding both is the same request.
    expect(sentBody(body)).toEqual({
      contents: recorded.contents,
      tools: [{ functionDeclarations: declarations }],
      toolConfig: recorded.toolConfig,
    });
  });

  it("streamed tools request: declarations with descriptions, no toolConfig without tool_choice (gemini.streamGenerateContent.tools.request.json)", () => {
    const recorded = wire<{ contents: unknown; tools: { functionDeclarations: { name: string; description: string }[] }[] }>(
      "gemini.streamGenerateContent.tools.request.json",
    );
    const parameters = { type: "object", properties: { denominator: { type: "number" }, numerator: { type: "number" } } };
    const call = chat({
      messages: [{ role: "user", content: "what is the result of 100/2" }],
      tools: [{ type: "function", function: { name: "customDivide", description: "Custom divide function", parameters } }],
      stream: true,
    });
    expect(call.path).toContain(":streamGenerateContent?alt=sse");
    const declaration = recorded.tools[0]!.functionDeclarations[0]!;
    expect(JSON.parse(call.body)).toEqual({
      contents: recorded.contents,
      tools: [
        { functionDeclarations: [{ name: declaration.name, description: declaration.description, parametersJsonSchema: parameters }] },
      ],
    });
  });

  it("image output: modalities [image, text] -> responseModalities [IMAGE, TEXT] (gemini.streamGenerateContent.image.request.json)", () => {
    const body = {
      messages: [{ role: "user", content: "Generate an image of the Eiffel tower with fireworks in  the background." }],
      modalities: ["image", "text"],
      stream: true,
    };
    expect(JSON.parse(chat(body).body)).toEqual(wire("gemini.streamGenerateContent.image.request.json"));
  });

  it("image input by URL: fileData with the MIME type guessed from the extension (openai.chat.image_input.request.json)", () => {
    expect(sentBody(wire("openai.chat.image_input.request.json"))).toEqual({
      contents: [
        {
          role: "user",
          parts: [
            { text: "What is in this image?" },
            {
              fileData: {
                fileUri:
                  "https://upload.wikimedia.org/wikipedia/commons/thumb/d/dd/Gfp-wisconsin-madison-the-nature-boardwalk.jpg/2560px-Gfp-wisconsin-madison-the-nature-boardwalk.jpg",
                mimeType: "image/jpeg",
              },
            },
          ],
        },
      ],
      generationConfig: { maxOutputTokens: 300 },
    });
  });

  it("tools from the OpenAI recording (openai.chat.tools.request.json)", () => {
    const openAi = wire<{ tools: { function: { parameters: unknown } }[] }>("openai.chat.tools.request.json");
    expect(sentBody(openAi)).toEqual({
      contents: [{ role: "user", parts: [{ text: "What is the weather like in Boston today?" }] }],
      tools: [
        {
          functionDeclarations: [
            {
              name: "get_current_weather",
              description: "Get the current weather in a given location",
              parametersJsonSchema: openAi.tools[0]!.function.parameters,
            },
          ],
        },
      ],
      toolConfig: { functionCallingConfig: { mode: "AUTO" } },
    });
  });
});

describe("GeminiAdapter chat requests (constructed)", () => {
  it("multi-turn with parallel tool calls: functionCall parts, then one user turn of functionResponses named from the call ids", () => {
    const body = {
      messages: [
        { role: "user", content: "Weather in Paris and Rome?" },
        {
          role: "assistant",
          content: null,
          tool_calls: [
            { id: "call_a", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
            { id: "call_b", type: "function", function: { name: "get_time", arguments: '{"city":"Rome"}' } },
          ],
        },
        { role: "tool", tool_call_id: "call_a", content: '{"temp_c":21}' },
        { role: "tool", tool_call_id: "call_b", content: [{ type: "text", text: "14:05" }] },
        { role: "assistant", content: "Paris is 21 C; it is 14:05 in Rome." },
        { role: "user", content: "Thanks" },
      ],
    };
    expect(sentBody(body).contents).toEqual([
      { role: "user", parts: [{ text: "Weather in Paris and Rome?" }] },
      {
        role: "model",
        parts: [
          { functionCall: { name: "get_weather", args: { city: "Paris" } } },
          { functionCall: { name: "get_time", args: { city: "Rome" } } },
        ],
      },
      {
        role: "user",
        parts: [
          { functionResponse: { name: "get_weather", response: { temp_c: 21 } } },
          { functionResponse: { name: "get_time", response: { content: "14:05" } } },
        ],
      },
      { role: "model", parts: [{ text: "Paris is 21 C; it is 14:05 in Rome." }] },
      { role: "user", parts: [{ text: "Thanks" }] },
    ]);
  });

  it("a tool result that is JSON but not an object is wrapped; a reused call id names the latest call; unparseable arguments become {}", () => {
    const body = {
      messages: [
        { role: "user", content: "go" },
        { role: "assistant", tool_calls: [{ id: "call_0", type: "function", function: { name: "first", arguments: "not json" } }] },
        { role: "tool", tool_call_id: "call_0", content: "[1,2]" },
        { role: "assistant", content: "", tool_calls: [{ id: "call_0", type: "function", function: { name: "second", arguments: "{}" } }] },
        { role: "tool", tool_call_id: "call_0", content: "42" },
        { role: "tool", tool_call_id: "call_unknown", name: "legacy_name", content: "x" },
      ],
    };
    expect(sentBody(body).contents).toEqual([
      { role: "user", parts: [{ text: "go" }] },
      { role: "model", parts: [{ functionCall: { name: "first", args: {} } }] },
      { role: "user", parts: [{ functionResponse: { name: "first", response: { content: "[1,2]" } } }] },
      { role: "model", parts: [{ functionCall: { name: "second", args: {} } }] },
      {
        role: "user",
        parts: [
          { functionResponse: { name: "second", response: { content: "42" } } },
          { functionResponse: { name: "legacy_name", response: { content: "x" } } },
        ],
      },
    ]);
  });

  it("image input: data URLs inline (base64 or percent-encoded), http(s) URLs by reference with a guessed or omitted MIME type", () => {
    const body = {
      messages: [
        {
          role: "user",
          content: [
            { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=", detail: "high" } },
            { type: "image_url", image_url: "data:image/svg+xml,%3Csvg%2F%3E" },
            { type: "image_url", image_url: { url: "data:text/plain,100%" } },
            { type: "image_url", image_url: { url: "https://example.com/cat.WEBP?size=large" } },
            { type: "image_url", image_url: { url: "https://example.com/render?id=7" } },
            { type: "input_audio", input_audio: { data: "UklGRg==", format: "wav" } },
            { type: "file", file: { file_data: "data:application/pdf;base64,JVBERi0=", filename: "a.pdf" } },
            { type: "file", file: { file_id: "file-abc" } },
            { type: "text", text: "" },
            { type: "text", text: "Describe them." },
          ],
        },
      ],
    };
    expect(sentBody(body).contents).toEqual([
      {
        role: "user",
        parts: [
          { inlineData: { mimeType: "image/png", data: "iVBORw0KGgo=" } },
          { inlineData: { mimeType: "image/svg+xml", data: Buffer.from("<svg/>").toString("base64") } },
          { inlineData: { mimeType: "text/plain", data: Buffer.from("100%").toString("base64") } },
          { fileData: { fileUri: "https://example.com/cat.WEBP?size=large", mimeType: "image/webp" } },
          { fileData: { fileUri: "https://example.com/render?id=7", mimeType: "image/jpeg" } },
          { inlineData: { mimeType: "audio/wav", data: "UklGRg==" } },
          { inlineData: { mimeType: "application/pdf", data: "JVBERi0=" } },
          { text: "Describe them." },
        ],
      },
    ]);
  });

  it("images of an earlier generated answer go back to the model inline", () => {
    const body = {
      messages: [
        { role: "user", content: "Draw a cat" },
        {
          role: "assistant",
          content: "Here it is.",
          images: [{ type: "image_url", image_url: { url: "data:image/png;base64,AAAA" }, index: 0 }],
        },
        { role: "user", content: "Make it blue" },
      ],
      modalities: ["image", "text"],
    };
    expect(sentBody(body).contents).toEqual([
      { role: "user", parts: [{ text: "Draw a cat" }] },
      { role: "model", parts: [{ text: "Here it is." }, { inlineData: { mimeType: "image/png", data: "AAAA" } }] },
      { role: "user", parts: [{ text: "Make it blue" }] },
    ]);
  });

  it.each<[string, unknown, unknown]>([
    ["auto", "auto", { functionCallingConfig: { mode: "AUTO" } }],
    ["none", "none", { functionCallingConfig: { mode: "NONE" } }],
    ["required", "required", { functionCallingConfig: { mode: "ANY" } }],
    [
      "a named function",
      { type: "function", function: { name: "lookup" } },
      { functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["lookup"] } },
    ],
    ["absent", undefined, undefined],
    ["unknown", "sometimes", undefined],
  ])("tool_choice %s", (_name, toolChoice, expected) => {
    const body = {
      messages: [{ role: "user", content: "q" }],
      tools: [{ type: "function", function: { name: "lookup" } }],
      tool_choice: toolChoice,
    };
    const sent = sentBody(body);
    expect(sent.tools).toEqual([{ functionDeclarations: [{ name: "lookup" }] }]);
    expect(sent.toolConfig).toEqual(expected);
  });

  it("non-function tools are dropped, and tool_choice without function tools sends neither", () => {
    const sent = sentBody({
      messages: [{ role: "user", content: "q" }],
      tools: [{ type: "custom", custom: { name: "x" } }],
      tool_choice: "required",
    });
    expect(sent).toEqual({ contents: [{ role: "user", parts: [{ text: "q" }] }] });
  });

  it("maps sampling options to generationConfig and drops what Gemini lacks", () => {
    const body = {
      model: "gemini",
      messages: [{ role: "user", content: "q" }],
      max_tokens: 50,
      max_completion_tokens: 120,
      temperature: 0.3,
      top_p: 0.9,
      top_k: 40,
      stop: ["END", 7, "STOP"],
      n: 2,
      seed: 11,
      presence_penalty: 0.5,
      frequency_penalty: -0.25,
      response_format: { type: "json_object" },
      modalities: ["text"],
      logit_bias: { "50256": -100 },
      user: "u-1",
      metadata: { a: "b" },
      reasoning_effort: "low",
      service: { tier: "economy" },
    };
    const sent = sentBody(body);
    expect(Object.keys(sent)).toEqual(["contents", "generationConfig"]);
    expect(sent.generationConfig).toEqual({
      maxOutputTokens: 120,
      temperature: 0.3,
      topP: 0.9,
      topK: 40,
      candidateCount: 2,
      seed: 11,
      presencePenalty: 0.5,
      frequencyPenalty: -0.25,
      stopSequences: ["END", "STOP"],
      responseMimeType: "application/json",
    });
    expect(sentBody({ messages: [{ role: "user", content: "q" }], stop: "###", temperature: "hot" }).generationConfig).toEqual({
      stopSequences: ["###"],
    });
  });
});

describe("GeminiAdapter embeddings requests", () => {
  it("array input -> batchEmbedContents with one request per text (gemini.batchEmbedContents.request.json)", () => {
    const recorded = wire("gemini.batchEmbedContents.request.json");
    const texts = ["What is the meaning of life?", "How much wood would a woodchuck chuck?", "How does the brain work?"];
    const call = adapter.request(
      "embeddings",
      { model: "auto", input: texts, encoding_format: "float", user: "u" },
      { ...requestContext, upstreamModel: "gemini-embedding-001" },
    );
    expect(call.path).toBe("/models/gemini-embedding-001:batchEmbedContents");
    expect(call.headers["x-goog-api-key"]).toBe("AIza-test");
    expect(JSON.parse(call.body)).toEqual(recorded);
  });

  it("string input and dimensions -> one request with outputDimensionality (gemini.embedContent.request.json's 256)", () => {
    const recorded = wire<{ output_dimensionality: number; content: unknown }>("gemini.embedContent.request.json");
    const call = adapter.request(
      "embeddings",
      { input: "Hello world", dimensions: recorded.output_dimensionality },
      { ...requestContext, upstreamModel: "gemini-embedding-001" },
    );
    expect(JSON.parse(call.body)).toEqual({
      requests: [{ model: "models/gemini-embedding-001", content: recorded.content, outputDimensionality: 256 }],
    });
  });
});

describe("GeminiAdapter embeddings requests (constructed)", () => {
  it("refuses token-id input, which Gemini cannot take", () => {
    for (const input of [
      [1, 2, 3],
      [[1, 2], [3]],
    ]) {
      expect(() => adapter.request("embeddings", { input }, requestContext)).toThrow(GatewayError);
    }
  });
});

describe("GeminiAdapter whole answers from recorded Gemini responses", () => {
  const translate = (file: string) =>
    adapter.response("chat", wire(file), responseContext) as { choices: Record<string, unknown>[]; [key: string]: unknown };

  it("plain, stopped by MAX_TOKENS: length, responseId as id, modelVersion as model, thoughts counted as completion (gemini.generateContent.response.json)", () => {
    const recorded = wire<{ candidates: { content: { parts: { text: string }[] } }[] }>("gemini.generateContent.response.json");
    expect(translate("gemini.generateContent.response.json")).toEqual({
      id: "chatcmpl-jy77aN2dK5v_1e8PlvqtsQ8",
      object: "chat.completion",
      created: responseContext.created,
      model: "gemini-2.5-flash",
      choices: [
        {
          index: 0,
          message: { role: "assistant", content: recorded.candidates[0]!.content.parts[0]!.text, refusal: null, annotations: [] },
          finish_reason: "length",
          logprobs: null,
        },
      ],
      usage: { prompt_tokens: 7, completion_tokens: 197, total_tokens: 204, completion_tokens_details: { reasoning_tokens: 48 } },
      // What OpenAI's live answers always carry (providers/openai-answer-fields.ts).
      service_tier: "default",
      system_fingerprint: expect.stringMatching(/^fp_[0-9a-f]{12}$/),
    });
  });

  it("system instruction answer (gemini.generateContent.system_instruction.response.json)", () => {
    const completion = translate("gemini.generateContent.system_instruction.response.json");
    expect(completion.choices).toEqual([
      { index: 0, message: { role: "assistant", content: "low", refusal: null, annotations: [] }, finish_reason: "stop", logprobs: null },
    ]);
    expect(completion.usage).toEqual({
      prompt_tokens: 9,
      completion_tokens: 21,
      total_tokens: 30,
      completion_tokens_details: { reasoning_tokens: 20 },
    });
  });

  it("json_schema answer: the JSON document is the content (gemini.generateContent.json_schema.response.json)", () => {
    const completion = translate("gemini.generateContent.json_schema.response.json");
    const message = completion.choices[0]!.message as { content: string };
    expect(JSON.parse(message.content)).toMatchObject({ simpleString: "Hello", inner: { innerNumber: 100 } });
    expect(completion.usage).toEqual({
      prompt_tokens: 5,
      completion_tokens: 508,
      total_tokens: 513,
      completion_tokens_details: { reasoning_tokens: 331 },
    });
  });

  it("thinking: thought parts go to reasoning, not content; usage without candidatesTokenCount (gemini.generateContent.thinking.response.json)", () => {
    const completion = translate("gemini.generateContent.thinking.response.json");
    const message = completion.choices[0]!.message as Record<string, unknown>;
    expect(message.content).toBeNull();
    expect(message.reasoning).toMatch(/^\*\*Breaking Down the Sum of Natural Numbers\*\*/);
    expect(completion.choices[0]!.finish_reason).toBe("length");
    expect(completion.model).toBe("gemini-2.0-flash-thinking-exp-01-21");
    expect(completion.usage).toEqual({
      prompt_tokens: 17,
      completion_tokens: 19,
      total_tokens: 36,
      completion_tokens_details: { reasoning_tokens: 19 },
    });
  });

  it("parallel function calls: tool_calls with generated ids and JSON arguments, finish tool_calls (gemini.generateContent.tools.response.json)", () => {
    const completion = translate("gemini.generateContent.tools.response.json");
    expect(completion.choices).toEqual([
      {
        index: 0,
        message: {
          role: "assistant",
          content: null,
          refusal: null,
          annotations: [],
          tool_calls: [
            {
              id: "call_CTCtaLDkH4qH-8YP1_DmmQ0_0",
              type: "function",
              function: { name: "print", arguments: '{"color":"blue","text":"hello"}' },
            },
            { id: "call_CTCtaLDkH4qH-8YP1_DmmQ0_1", type: "function", function: { name: "beep", arguments: "{}" } },
          ],
        },
        finish_reason: "tool_calls",
        logprobs: null,
      },
    ]);
    expect(completion.usage).toEqual({ prompt_tokens: 21, completion_tokens: 6, total_tokens: 27 });
  });
});

describe("GeminiAdapter whole answers (constructed)", () => {
  const answer = (json: unknown) =>
    adapter.response("chat", json, responseContext) as { choices: Record<string, unknown>[]; [key: string]: unknown };

  it("a blocked prompt (no candidates) is one empty choice stopped by the content filter", () => {
    const completion = answer({
      promptFeedback: { blockReason: "PROHIBITED_CONTENT", safetyRatings: [] },
      usageMetadata: { promptTokenCount: 8, totalTokenCount: 8 },
    });
    expect(completion).toEqual({
      id: "chatcmpl-gateway",
      object: "chat.completion",
      created: responseContext.created,
      model: "gemini-2.5-flash",
      choices: [
        {
          index: 0,
          message: { role: "assistant", content: null, refusal: null, annotations: [] },
          finish_reason: "content_filter",
          logprobs: null,
        },
      ],
      usage: { prompt_tokens: 8, completion_tokens: 0, total_tokens: 8 },
      service_tier: "default",
      system_fingerprint: expect.stringMatching(/^fp_[0-9a-f]{12}$/),
    });
  });

  it("image output: inline images as message.images data URLs, image tokens reported; cached tokens as cached_tokens", () => {
    const completion = answer({
      candidates: [
        {
          content: {
            role: "model",
            parts: [
              { text: "Here:" },
              { inlineData: { mimeType: "image/png", data: "iVBORw0=" } },
              { inlineData: { mimeType: "audio/wav", data: "UklG" } },
            ],
          },
          finishReason: "STOP",
          index: 0,
        },
      ],
      usageMetadata: {
        promptTokenCount: 100,
        cachedContentTokenCount: 64,
        candidatesTokenCount: 1300,
        candidatesTokensDetails: [{ modality: "IMAGE", tokenCount: 1290 }],
        totalTokenCount: 1400,
      },
    });
    expect(completion.choices[0]).toEqual({
      index: 0,
      message: {
        role: "assistant",
        content: "Here:",
        refusal: null,
        annotations: [],
        images: [{ type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0=" }, index: 0 }],
      },
      finish_reason: "stop",
      logprobs: null,
    });
    expect(completion.usage).toEqual({
      prompt_tokens: 100,
      completion_tokens: 1300,
      total_tokens: 1400,
      prompt_tokens_details: { cached_tokens: 64 },
      completion_tokens_details: { image_tokens: 1290 },
    });
  });

  it("several candidates are several choices; Gemini's own call ids are kept", () => {
    const completion = answer({
      candidates: [
        { content: { parts: [{ text: "A" }] }, finishReason: "STOP", index: 0 },
        { content: { parts: [{ functionCall: { id: "fc-9", name: "f", args: { x: 1 } } }] }, finishReason: "STOP", index: 1 },
      ],
    });
    expect(completion.choices.map((choice) => choice.finish_reason)).toEqual(["stop", "tool_calls"]);
    expect((completion.choices[1]!.message as { tool_calls: { id: string }[] }).tool_calls[0]!.id).toBe("fc-9");
    expect(completion.usage).toBeUndefined();
  });

  it.each<[string, string]>([
    ["STOP", "stop"],
    ["MAX_TOKENS", "length"],
    ["SAFETY", "content_filter"],
    ["RECITATION", "content_filter"],
    ["BLOCKLIST", "content_filter"],
    ["PROHIBITED_CONTENT", "content_filter"],
    ["SPII", "content_filter"],
    ["IMAGE_SAFETY", "content_filter"],
    ["OTHER", "stop"],
    ["MALFORMED_FUNCTION_CALL", "stop"],
  ])("finish reason %s -> %s", (reason, expected) => {
    expect(answer({ candidates: [{ content: { parts: [{ text: "x" }] }, finishReason: reason }] }).choices[0]!.finish_reason).toBe(
      expected,
    );
  });

  it.each<[string, unknown]>([
    ["null", null],
    ["an array", [{ candidates: [] }]],
    ["a Google error envelope", { error: { code: 500, status: "INTERNAL" } }],
    ["an object without candidates or block reason", { usageMetadata: { promptTokenCount: 1 } }],
    ["an OpenAI completion", { id: "x", object: "chat.completion", choices: [] }],
  ])("throws on a body that is not a GenerateContentResponse: %s", (_name, json) => {
    expect(() => answer(json)).toThrow();
  });
});

describe("GeminiAdapter embeddings answers", () => {
  const embeddingContext: ResponseContext = { ...responseContext, model: "gemini-embedding-001" };

  it("batchEmbedContents -> an OpenAI list of float vectors, no usage (gemini.batchEmbedContents.response.json)", () => {
    const recorded = wire<{ embeddings: { values: number[] }[] }>("gemini.batchEmbedContents.response.json");
    expect(adapter.response("embeddings", recorded, embeddingContext)).toEqual({
      object: "list",
      data: recorded.embeddings.map((embedding, index) => ({ object: "embedding", index, embedding: embedding.values })),
      model: "gemini-embedding-001",
    });
  });

  it("embedContent -> a one-item list (gemini.embedContent.response.json)", () => {
    const recorded = wire<{ embedding: { values: number[] } }>("gemini.embedContent.response.json");
    expect(adapter.response("embeddings", recorded, embeddingContext)).toEqual({
      object: "list",
      data: [{ object: "embedding", index: 0, embedding: recorded.embedding.values }],
      model: "gemini-embedding-001",
    });
  });

  it("throws on bodies that are not embeddings", () => {
    for (const json of [null, {}, { embeddings: [{ values: ["a"] }] }, { embedding: {} }, wire("gemini.error.404.not_found.json")]) {
      expect(() => adapter.response("embeddings", json, embeddingContext)).toThrow();
    }
  });
});

describe("GeminiAdapter requests at the edges", () => {
  it("sends an image_url reference only as an image, never as a video or a page to process", () => {
    for (const url of ["https://www.youtube.com/watch?v=abc", "https://example.com/film.mp4", "https://example.com/doc.pdf"]) {
      const body = JSON.parse(chat({ messages: [{ role: "user", content: [{ type: "image_url", image_url: { url } }] }] }).body);
      expect(body.contents[0].parts[0]).toEqual({ fileData: { fileUri: url, mimeType: "image/jpeg" } });
    }
  });

  it("sends a conversation of system messages only as one user turn (Gemini refuses empty contents)", () => {
    const body = JSON.parse(chat({ messages: [{ role: "system", content: "Say hi." }] }).body);
    expect(body.contents).toEqual([{ role: "user", parts: [{ text: "Say hi." }] }]);
    expect(body).not.toHaveProperty("systemInstruction");
  });

  it("sends the catalogue's max output when the caller set none", () => {
    const body = JSON.parse(chat({ messages: [{ role: "user", content: "hi" }] }, { maxOutputTokens: 8_192 }).body);
    expect(body.generationConfig.maxOutputTokens).toBe(8_192);
    const own = JSON.parse(chat({ messages: [{ role: "user", content: "hi" }], max_tokens: 10 }, { maxOutputTokens: 8_192 }).body);
    expect(own.generationConfig.maxOutputTokens).toBe(10);
  });
});
