// Tenants cannot point a model at what the operator's provider accounts keep (issue 33, item 4): a
// stored file by id, a Gemini Files API or gs:// URI as a media URL, an earlier audio answer by id.
// Each dialect refuses them with 400 unsupported_input naming the part, on every path; the Gemini
// codec refuses such a URI on its own too; chat's `store` goes upstream as false, `metadata` not at all.
import { describe, expect, it } from "vitest";
import { anthropicMessages } from "../../src/dialects/anthropic-messages/anthropic-messages-dialect";
import { openAiChat } from "../../src/dialects/openai/openai-chat-dialect";
import { openAiResponses } from "../../src/dialects/openai-responses/openai-responses-dialect";
import { isClientMediaUrl } from "../../src/dialects/provider-storage";
import { GeminiAdapter } from "../../src/providers/gemini/gemini-adapter";
import { OpenAiCompatibleAdapter } from "../../src/providers/openai-compatible/openai-compatible-adapter";
import type { RequestContext } from "../../src/providers/provider-adapter";
import { thrown } from "../support/thrown";

const FILES_URI = "https://generativelanguage.googleapis.com/v1beta/files/abc123";
const GCS_URI = "gs://operator-bucket/secret.pdf";

describe("isClientMediaUrl", () => {
  it.each([
    "https://example.com/cat.png",
    "http://example.com/cat.png",
    "HTTPS://EXAMPLE.COM/cat.png",
    "data:image/png;base64,iVBORw0KGgo=",
    "https://storage.googleapis.com/public-bucket/cat.png", // a public object, fetched like any web URL
  ])("takes %s", (url) => {
    expect(isClientMediaUrl(url)).toBe(true);
  });

  it.each([
    FILES_URI,
    "https://generativelanguage.googleapis.com/upload/v1beta/files?uploadType=media",
    "HTTPS://GenerativeLanguage.GoogleAPIs.com./v1beta/files/abc",
    "https://user@generativelanguage.googleapis.com/v1beta/files/abc",
    GCS_URI,
    "files/abc123",
    "s3://bucket/key",
    "file:///etc/passwd",
    "https://",
  ])("refuses %s", (url) => {
    expect(isClientMediaUrl(url)).toBe(false);
  });
});

const refusal = (run: () => unknown) => {
  const error = thrown(run);
  return { status: error.status, code: error.code, message: error.message };
};

describe("chat completions", () => {
  const parse = (content: unknown[], extra: Record<string, unknown>[] = []) =>
    openAiChat.parse({ model: "auto", messages: [...extra, { role: "user", content }] });

  it("refuses a file part by file_id, naming the part", () => {
    expect(
      refusal(() =>
        parse(
          [
            { type: "text", text: "read it" },
            { type: "file", file: { file_id: "file-abc" } },
          ],
          [{ role: "system", content: "s" }],
        ),
      ),
    ).toMatchObject({
      status: 400,
      code: "unsupported_input",
      message: expect.stringMatching(/^messages\[1\]\.content\[1\]: a file_id is not supported/),
    });
  });

  it.each([FILES_URI, GCS_URI])("refuses an image_url naming provider storage (%s), as an object or a bare string", (url) => {
    for (const part of [
      { type: "image_url", image_url: { url } },
      { type: "image_url", image_url: url },
    ]) {
      expect(refusal(() => parse([part]))).toMatchObject({
        status: 400,
        code: "unsupported_input",
        message: expect.stringMatching(/^messages\[0\]\.content\[0\]\.image_url: .* is not an https or data: URL\./),
      });
    }
  });

  it("refuses an assistant turn's audio by id", () => {
    const history = [{ role: "assistant", content: null, audio: { id: "audio_abc123" } }];
    expect(
      refusal(() =>
        parse(
          ["x"].map((text) => ({ type: "text", text })),
          history,
        ),
      ),
    ).toMatchObject({
      status: 400,
      code: "unsupported_input",
      message: expect.stringMatching(/^messages\[0\]\.audio: an earlier audio answer by id is not supported/),
    });
  });

  it("refuses a custom voice by id, and takes a built-in one", () => {
    const ask = (voice: unknown) =>
      openAiChat.parse({
        model: "auto",
        modalities: ["text", "audio"],
        audio: { voice, format: "wav" },
        messages: [{ role: "user", content: "hi" }],
      });
    expect(refusal(() => ask({ id: "voice_1234" }))).toMatchObject({
      status: 400,
      code: "unsupported_input",
      message: expect.stringMatching(/^audio\.voice: a custom voice by id is not supported/),
    });
    expect(ask("alloy").body.audio).toEqual({ voice: "alloy", format: "wav" });
  });

  it("takes inline files, https and data: images", () => {
    const content = [
      { type: "file", file: { filename: "a.pdf", file_data: "data:application/pdf;base64,JVBERi0x" } },
      { type: "image_url", image_url: { url: "https://example.com/cat.png" } },
      { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
    ];
    expect(parse(content).body.messages).toEqual([{ role: "user", content }]);
  });
});

describe("Responses", () => {
  it.each([FILES_URI, GCS_URI])("refuses an input_image naming provider storage (%s)", (url) => {
    const body = { model: "auto", input: [{ role: "user", content: [{ type: "input_image", image_url: url }] }] };
    expect(refusal(() => openAiResponses.parse(body))).toMatchObject({
      status: 400,
      code: "unsupported_input",
      message: expect.stringMatching(/^input\[0\]\.content\[0\]\.image_url: .* is not an https or data: URL\./),
    });
  });
});

describe("Messages", () => {
  it.each([FILES_URI, GCS_URI])("refuses an image by a URL naming provider storage (%s), in a tool result too", (url) => {
    const image = { type: "image", source: { type: "url", url } };
    for (const [content, at] of [
      [[image], "messages.0.content.0.source.url"],
      [[{ type: "tool_result", tool_use_id: "t", content: [image] }], "messages.0.content.0.content.0.source.url"],
    ] as const) {
      const body = { model: "auto", max_tokens: 8, messages: [{ role: "user", content }] };
      expect(refusal(() => anthropicMessages.parse(body, {}))).toMatchObject({
        status: 400,
        code: "unsupported_input",
        message: expect.stringContaining(`${at}: `),
      });
    }
  });
});

describe("the Gemini codec on its own", () => {
  it.each([FILES_URI, GCS_URI])("refuses to build fileData from %s", (url) => {
    const adapter = new GeminiAdapter();
    const body = { model: "m", messages: [{ role: "user", content: [{ type: "image_url", image_url: { url } }] }] };
    const context: RequestContext = { apiKey: "k", upstreamModel: "gemini-2.5-flash", maxOutputTokens: 0 };
    expect(refusal(() => adapter.request("chat", body, context))).toMatchObject({
      status: 400,
      code: "unsupported_input",
      message: expect.stringMatching(/^messages\[0\]\.content\[0\]\.image_url: /),
    });
  });
});

describe("chat's store and metadata to OpenAI-compatible upstreams", () => {
  const adapter = new OpenAiCompatibleAdapter();
  const messages = [{ role: "user", content: "hi" }];

  it("sends store: false whatever the client asked, and never metadata", () => {
    for (const store of [true, false, "yes"]) {
      const sent = JSON.parse(adapter.chatBody({ model: "m", messages, store, metadata: { tenant: "t1" } }, "gpt-4.1-mini"));
      expect(sent).toEqual({ model: "gpt-4.1-mini", messages, store: false });
    }
  });

  it("adds no store field the client did not send (OpenAI's default is false)", () => {
    expect(JSON.parse(adapter.chatBody({ model: "m", messages }, "gpt-4.1-mini"))).toEqual({ model: "gpt-4.1-mini", messages });
  });
});
