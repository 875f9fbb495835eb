// The Anthropic adapter's native codec for the Anthropic Messages dialect:
// the client's body passes through (cache_control and thinking kept), fields
// outside the Messages allowlist dropped, the model replaced, a cap in
// max_tokens, anthropic-beta forwarded; answers read for the meter.
import { describe, expect, it } from "vitest";
import { AnthropicAdapter } from "../../src/providers/anthropic/anthropic-adapter";
import type { RequestContext } from "../../src/providers/provider-adapter";
import { fixtures } from "../support/fixture";

const codec = new AnthropicAdapter().native("anthropic-messages")!;
const context: RequestContext = {
  upstreamModel: "claude-sonnet-4-20250514",
  apiKey: "sk-ant-upstream",
  maxOutputTokens: 8_192,
  clientHeaders: { "anthropic-beta": "prompt-caching-2024-07-31,interleaved-thinking-2025-05-14" },
};
const body = {
  model: "anthropic/claude-sonnet-4",
  max_tokens: 1024,
  system: [{ type: "text", text: "Long instructions", cache_control: { type: "ephemeral" } }],
  messages: [
    {
      role: "assistant",
      content: [
        { type: "thinking", thinking: "hmm", signature: "sig" },
        { type: "text", text: "Hi", cache_control: { type: "ephemeral" } },
      ],
    },
    { role: "user", content: "hi" },
  ],
  tools: [{ type: "web_search_20250305", name: "web_search", max_uses: 1 }],
  thinking: { type: "enabled", budget_tokens: 2_000 },
  service: { tier: "quality" },
  stream: true,
};

describe("the anthropic-messages native codec", () => {
  it("is offered for the anthropic-messages dialect only", () => {
    expect(new AnthropicAdapter().native("openai-chat")).toBeUndefined();
  });

  it("sends the body as written to POST /messages: model replaced, the gateway's fields dropped, headers with the client's anthropic-beta", () => {
    const call = codec.call(body, context);
    expect(call.path).toBe("/messages");
    const { service: _service, ...kept } = body;
    expect(call.body).toBe(JSON.stringify({ ...kept, model: "claude-sonnet-4-20250514" }));
    expect(call.headers).toEqual({
      "content-type": "application/json",
      "anthropic-version": "2023-06-01",
      "x-api-key": "sk-ant-upstream",
      "anthropic-beta": "prompt-caching-2024-07-31,interleaved-thinking-2025-05-14",
    });
  });

  it("puts a cap in max_tokens, and sends no anthropic-beta the client did not send", () => {
    const call = codec.call(body, { ...context, clientHeaders: undefined }, 300);
    expect(JSON.parse(call.body).max_tokens).toBe(300);
    expect(call.headers["anthropic-beta"]).toBeUndefined();
  });

  it("builds POST /messages/count_tokens with the count's own fields", () => {
    const call = codec.countTokens!(body, context);
    expect(call.path).toBe("/messages/count_tokens");
    expect(JSON.parse(call.body)).toEqual({
      model: "claude-sonnet-4-20250514",
      system: body.system,
      messages: body.messages,
      tools: body.tools,
      thinking: body.thinking,
    });
    expect(call.headers["anthropic-beta"]).toBe(context.clientHeaders!["anthropic-beta"]);
  });

  it("reads a whole answer and a stream into the shared representation for the meter", () => {
    const responseContext = { id: "chatcmpl-x", created: 1, model: "claude" };
    const answer = codec.response(fixtures("anthropic-messages").json("anthropic.messages.response.json"), responseContext);
    expect(answer.usage).toMatchObject({ prompt_tokens: 249, completion_tokens: 26 });
    const translator = codec.stream(responseContext);
    const items = translator.push({ event: "message_stop", data: '{"type":"message_stop"}', id: undefined });
    expect(items.at(-1)).toEqual({ kind: "done" });
  });
});
