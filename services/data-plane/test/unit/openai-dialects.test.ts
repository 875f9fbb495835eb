// The OpenAI client dialects: what a body must be, and how answers, stream
// events, usage with cost and errors are written back.
import { describe, expect, it } from "vitest";
import type { AnswerContext } from "../../src/dialects/client-dialect";
import { openAiChat } from "../../src/dialects/openai/openai-chat-dialect";
import { openAiEmbeddings } from "../../src/dialects/openai/openai-embeddings-dialect";
import { streamFailed, upstreamUnreachable } from "../../src/errors";
import { thrown } from "../support/thrown";

const messages = [{ role: "user", content: "hi" }];
const renderContext = (native: boolean) => ({
  request: openAiChat.parse({ model: "auto", messages }),
  requestId: "req-1",
  native,
  upstreamModel: "gpt-up",
});
const event = (data: string) => ({ event: "message", data, id: undefined });

function context(request = openAiChat.parse({ model: "auto", messages }), fields: Partial<AnswerContext> = {}): AnswerContext {
  return {
    request,
    requestId: "req-1",
    usage: { prompt_tokens: 9, completion_tokens: 3, total_tokens: 12 },
    tokens: { inputTokens: 9, outputTokens: 3 },
    debitedNano: 12_345n,
    trace: { requested: "auto" },
    upstreamModel: "gpt-up",
    ...fields,
  };
}

describe("openAiChat.parse", () => {
  it("takes the body as the shared representation itself, and as the client wrote it", () => {
    const body = { model: "auto", messages, stream: true, service: { tier: "economy" } };
    const request = openAiChat.parse(body);
    expect(request).toMatchObject({ operation: "chat", stream: true, service: { tier: "economy", route: "fallback" } });
    expect(request.body).toBe(body);
    expect(request.original).toBe(body);
  });

  it.each<[string, unknown, string, string]>([
    ["an array", [], "invalid_body", "The request body must be a JSON object."],
    ["no messages", { model: "auto" }, "invalid_body", "messages must be a non-empty array."],
    ["empty messages", { model: "auto", messages: [] }, "invalid_body", "messages must be a non-empty array."],
    [
      "a bad service block",
      { model: "auto", messages, service: { tier: "gold" } },
      "invalid_service",
      "service.tier must be one of economy, balanced, quality.",
    ],
  ])("refuses %s", (_case, body, code, message) => {
    expect(thrown(() => openAiChat.parse(body))).toMatchObject({ status: 400, code, message });
  });
});

describe("openAiChat.answer", () => {
  it("sets usage.cost to the debit in USD, in place of an aggregator's own figure, adding no other field", () => {
    const answer = openAiChat.answer({ id: "x", choices: [] }, context(undefined, { usage: { prompt_tokens: 9, cost: 0.5 } }));
    expect(answer.usage).toEqual({ prompt_tokens: 9, cost: 0.000012345 });
    expect(answer.service).toBeUndefined();
  });

  it("writes usage from the billed tokens when the upstream sent none, and the trace for a service block", () => {
    const request = openAiChat.parse({ model: "auto", messages, service: {} });
    const answer = openAiChat.answer({ id: "x", choices: [] }, context(request, { usage: undefined }));
    expect(answer.usage).toEqual({ prompt_tokens: 9, completion_tokens: 3, total_tokens: 12, cost: 0.000012345 });
    expect(answer.service).toEqual({ reason: { requested: "auto" } });
  });
});

describe("openAiChat stream renderer", () => {
  const chunk = (fields: Record<string, unknown>) => ({ id: "c1", object: "chat.completion.chunk", created: 7, model: "m", ...fields });

  it("relays a native upstream's own text, holds the usage chunk back and writes it last with its cost", () => {
    const renderer = openAiChat.streamRenderer(renderContext(true));
    const content = chunk({ choices: [{ index: 0, delta: { content: "Hi" } }] });
    expect(renderer.frames(event('{"raw":true}'), [content])).toBe('data: {"raw":true}\n\n');
    const usage = chunk({ choices: [], usage: { prompt_tokens: 9 } });
    expect(renderer.frames(event("{}"), [usage])).toBe("");
    expect(renderer.frames(event("[DONE]"), [])).toBe("");
    const end = renderer.finish(context(), undefined);
    expect(end).toBe(
      `data: ${JSON.stringify({ ...usage, usage: { prompt_tokens: 9, completion_tokens: 3, total_tokens: 12, cost: 0.000012345 } })}\n\ndata: [DONE]\n\n`,
    );
  });

  it("writes translated chunks as JSON, and a usage chunk of its own when the upstream sent none", () => {
    const renderer = openAiChat.streamRenderer(renderContext(false));
    const content = chunk({ choices: [{ index: 0, delta: { content: "Hi" } }] });
    const second = chunk({ choices: [{ index: 0, delta: { content: "!" } }] });
    expect(renderer.frames(event("ignored"), [content, second])).toBe(
      `data: ${JSON.stringify(content)}\n\ndata: ${JSON.stringify(second)}\n\n`,
    );
    const [usage] = renderer.finish(context(), undefined).split("\n\n");
    expect(JSON.parse(usage!.slice("data: ".length))).toEqual({
      id: "c1",
      object: "chat.completion.chunk",
      created: 7,
      model: "m",
      choices: [],
      usage: { prompt_tokens: 9, completion_tokens: 3, total_tokens: 12, cost: 0.000012345 },
    });
  });

  it("names the upstream model in a usage chunk when no chunk came", () => {
    const [usage] = openAiChat.streamRenderer(renderContext(false)).finish(context(), undefined).split("\n\n");
    expect(JSON.parse(usage!.slice("data: ".length))).toMatchObject({ model: "gpt-up", choices: [] });
  });

  it("ends a failed stream with its usage and one error event, no [DONE]", () => {
    const end = openAiChat.streamRenderer(renderContext(false)).finish(context(), streamFailed());
    expect(end).toMatch(
      /\n\ndata: \{"error":\{"type":"upstream_error","code":502,"message":"The upstream provider failed during the stream\.","param":null\}\}\n\n$/,
    );
    expect(end).not.toContain("[DONE]");
  });

  it("writes an error as one data event in the OpenAI shape", () => {
    expect(openAiChat.errorFrame(upstreamUnreachable())).toBe(
      'data: {"error":{"type":"upstream_error","code":504,"message":"The upstream provider could not be reached.","param":null}}\n\n',
    );
  });
});

describe("openAiEmbeddings", () => {
  it("needs input", () => {
    expect(thrown(() => openAiEmbeddings.parse({ model: "auto" }))).toMatchObject({ code: "invalid_body", message: "input is required." });
    expect(openAiEmbeddings.parse({ model: "auto", input: "x", stream: true })).toMatchObject({ operation: "embeddings", stream: false });
  });

  it("encodes float vectors as base64 when asked, and leaves base64 ones alone", () => {
    const request = openAiEmbeddings.parse({ model: "auto", input: "x", encoding_format: "base64" });
    const answer = openAiEmbeddings.answer({ data: [{ embedding: [1, 0.5] }, { embedding: "AAAA" }] }, context(request));
    expect(answer.data).toEqual([{ embedding: Buffer.from(new Float32Array([1, 0.5]).buffer).toString("base64") }, { embedding: "AAAA" }]);
    expect(answer.usage).toMatchObject({ cost: 0.000012345 });
  });
});
