// OpenRouter flavour of the OpenAI persona: when it switches on, what it adds
// (provider, native_finish_reason, usage.cost, the processing comment, its error
// forms, image output), and that plain OpenAI answers stay untouched.
import { crc32, inflateSync } from "node:zlib";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { chat, fixtureJson, fixtureText, readAll, script, sseData, startMock, USER } from "./helpers";
import type { Json, Mock } from "./helpers";

let mock: Mock;
beforeAll(async () => {
  mock = await startMock();
});
afterAll(() => mock.close());
beforeEach(() => mock.app.mock.reset());

const OPENROUTER = { "x-mock-persona": "openrouter" };
const PLAIN = { model: "openai/gpt-4.1-mini", messages: USER };
const STREAM = { ...PLAIN, stream: true, stream_options: { include_usage: true } };
const IMAGE = { model: "google/gemini-2.5-flash-image", messages: USER, modalities: ["image", "text"] };

/** usage.cost at the mock's fixed fake rate: $1 / M prompt tokens, $2 / M completion tokens. */
const costOf = (usage: Json) => (usage.prompt_tokens * 1 + usage.completion_tokens * 2) / 1e6;

function dataEvents(text: string): Json[] {
  return sseData(text.replace(/^: OPENROUTER PROCESSING\n\n/, ""))
    .filter((d) => d !== "[DONE]")
    .map((d) => JSON.parse(d) as Json);
}

/** Chunks of a valid PNG (signature, CRCs, inflatable image data), or throws. */
function pngChunks(bytes: Buffer): string[] {
  expect(bytes.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  const names: string[] = [];
  for (let at = 8; at < bytes.length; ) {
    const length = bytes.readUInt32BE(at);
    const typeAndData = bytes.subarray(at + 4, at + 8 + length);
    expect(bytes.readUInt32BE(at + 8 + length)).toBe(crc32(typeAndData));
    const name = typeAndData.subarray(0, 4).toString("ascii");
    if (name === "IDAT") expect(inflateSync(typeAndData.subarray(4)).length).toBeGreaterThan(0);
    names.push(name);
    at += 12 + length;
  }
  return names;
}

describe("OpenRouter: when it switches on", () => {
  it("a vendor/model id in the body switches it on; a bare model id leaves plain OpenAI", async () => {
    const routed = (await (await chat(mock, PLAIN)).json()) as Json;
    expect(routed.provider).toBe("OpenAI");
    expect(routed.id).toMatch(/^gen-\d+-mock\d+$/);
    const direct = (await (await chat(mock, { model: "gpt-4.1-mini", messages: USER })).json()) as Json;
    expect(direct).toEqual({ ...fixtureJson("openai.chat.response.json"), id: direct.id, created: direct.created, model: "gpt-4.1-mini" });
    expect(mock.app.mock.requests().map((r) => r.persona)).toEqual(["openrouter", "openai"]);
  });

  it("x-mock-persona: openrouter switches it on for any model; x-mock-persona: openai forces it off", async () => {
    const on = (await (await chat(mock, { model: "gpt-4.1-mini", messages: USER }, OPENROUTER)).json()) as Json;
    expect(on.provider).toBe("OpenAI");
    expect(on.usage.cost).toBeTypeOf("number");
    const off = (await (await chat(mock, PLAIN, { "x-mock-persona": "openai" })).json()) as Json;
    expect(off.provider).toBeUndefined();
    expect(off.id).toMatch(/^chatcmpl-mock-\d+$/);
  });

  it("a plain OpenAI stream has no comment line and no extras", async () => {
    const text = await (await chat(mock, { ...STREAM, model: "gpt-4.1-mini" })).text();
    expect(text.startsWith("data: ")).toBe(true);
    expect(text).not.toContain("provider");
    expect(text).not.toContain('"cost"');
  });
});

describe("OpenRouter: what it adds", () => {
  it("non-stream: provider after id, native_finish_reason after finish_reason, usage.cost/is_byok/cost_details", async () => {
    const body = (await (await chat(mock, { ...PLAIN, model: "anthropic/claude-sonnet-4" })).json()) as Json;
    const recorded = fixtureJson("openai.chat.response.json");
    expect(Object.keys(body).slice(0, 2)).toEqual(["id", "provider"]);
    expect(body.provider).toBe("Anthropic");
    expect(body.choices[0]).toEqual({ ...recorded.choices[0], native_finish_reason: "end_turn" });
    expect(Object.keys(body.choices[0]).indexOf("native_finish_reason")).toBe(Object.keys(body.choices[0]).indexOf("finish_reason") + 1);
    expect(body.usage).toMatchObject({ ...recorded.usage, cost: costOf(recorded.usage), is_byok: false });
    expect(body.usage.cost_details).toEqual({
      upstream_inference_cost: null,
      upstream_inference_prompt_cost: recorded.usage.prompt_tokens / 1e6,
      upstream_inference_completions_cost: (recorded.usage.completion_tokens * 2) / 1e6,
    });
    expect(body.choices[0].message).toEqual(recorded.choices[0].message);
  });

  it("usage scripts price the scripted tokens", async () => {
    const body = (await (await chat(mock, PLAIN, script({ usage: { prompt_tokens: 1000, completion_tokens: 500 } }))).json()) as Json;
    expect(body.usage).toMatchObject({ prompt_tokens: 1000, completion_tokens: 500, total_tokens: 1500, cost: 0.002, is_byok: false });
  });

  it("stream: one `: OPENROUTER PROCESSING` comment before the first event; chunks carry provider and native_finish_reason; usage chunk has cost", async () => {
    const text = await (await chat(mock, { ...STREAM, model: "google/gemini-2.5-flash" })).text();
    expect(text.startsWith(": OPENROUTER PROCESSING\n\ndata: ")).toBe(true);
    expect(text.split(": OPENROUTER PROCESSING")).toHaveLength(2);
    expect(text.endsWith("data: [DONE]\n\n")).toBe(true);
    const chunks = dataEvents(text);
    for (const chunk of chunks) expect(chunk.provider).toBe("Google AI Studio");
    const finish = chunks.find((c) => c.choices[0]?.finish_reason === "stop")!;
    expect(finish.choices[0].native_finish_reason).toBe("STOP");
    const usage = chunks.at(-1)!.usage;
    expect(usage.cost).toBe(costOf(usage));
    expect(usage.is_byok).toBe(false);
  });

  it("OpenRouter's own usage switch (usage.include) also brings the usage chunk", async () => {
    const chunks = dataEvents(await (await chat(mock, { ...PLAIN, stream: true, usage: { include: true } })).text());
    expect(chunks.at(-1)!.usage.cost).toBeTypeOf("number");
    const without = dataEvents(await (await chat(mock, { ...PLAIN, stream: true })).text());
    expect(without.some((c) => c.usage)).toBe(false);
  });

  it("firstChunkDelayMs holds the first event, not the comment", async () => {
    const res = await chat(mock, STREAM, script({ firstChunkDelayMs: 150 }));
    const reader = res.body!.getReader();
    const started = Date.now();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toBe(": OPENROUTER PROCESSING\n\n");
    expect(Date.now() - started).toBeLessThan(120);
    await reader.cancel();
  });
});

describe("OpenRouter: image output", () => {
  it("non-stream: message.images with a small valid PNG data URL, shaped as recorded", async () => {
    const body = (await (await chat(mock, IMAGE)).json()) as Json;
    const recorded = fixtureJson("openrouter.chat.image.response.json");
    expect(body.provider).toBe("Google AI Studio");
    const image = body.choices[0].message.images[0];
    expect(image).toEqual({ type: "image_url", image_url: { url: expect.stringMatching(/^data:image\/png;base64,/) }, index: 0 });
    expect(pngChunks(Buffer.from(image.image_url.url.split(",")[1], "base64"))).toEqual(["IHDR", "IDAT", "IEND"]);
    expect(body.choices[0]).toEqual({
      ...recorded.choices[0],
      native_finish_reason: "STOP",
      message: {
        ...recorded.choices[0].message,
        images: [{ ...recorded.choices[0].message.images[0], image_url: { url: image.image_url.url } }],
      },
    });
    expect(body.usage).toEqual({ ...recorded.usage, cost: costOf(recorded.usage), cost_details: expect.any(Object) });
    expect(body.usage.completion_tokens_details.image_tokens).toBe(1290);
  });

  it("stream: delta.images in the first chunk, then the finish, then usage", async () => {
    const text = await (await chat(mock, { ...IMAGE, stream: true, stream_options: { include_usage: true } })).text();
    expect(text.startsWith(": OPENROUTER PROCESSING\n\n")).toBe(true);
    const chunks = dataEvents(text);
    expect(chunks).toHaveLength(3);
    expect(chunks[0]!.choices[0].delta.images[0].image_url.url).toMatch(/^data:image\/png;base64,iVBOR/);
    expect(chunks[1]!.choices[0]).toMatchObject({ finish_reason: "stop", native_finish_reason: "STOP" });
    expect(chunks[2]!.usage.completion_tokens_details.image_tokens).toBe(1290);
  });

  it("without modalities image the same model answers text", async () => {
    const body = (await (await chat(mock, { ...IMAGE, modalities: ["text"] })).json()) as Json;
    expect(body.choices[0].message.images).toBeUndefined();
  });
});

describe("OpenRouter: errors and faults", () => {
  it("status scripts use OpenRouter's envelope {error:{code,message}}", async () => {
    for (const [status, message] of [
      [402, "Insufficient credits. Add more using https://openrouter.ai/credits"],
      [429, "Rate limit exceeded"],
      [502, "Provider returned error"],
      [503, "Service temporarily unavailable"],
      [403, "Only management keys can perform this operation"],
    ] as const) {
      const res = await chat(mock, PLAIN, script({ status }));
      expect(res.status).toBe(status);
      expect(await res.json()).toEqual({ error: { code: status, message } });
    }
    const named = await chat(mock, PLAIN, script({ errorFixture: "openrouter.error.402" }));
    expect(named.status).toBe(402);
    const openaiFixture = await chat(mock, PLAIN, script({ errorFixture: "openai.error.429.insufficient_quota" }));
    expect(await openaiFixture.json()).toEqual(fixtureJson("openai.error.429.insufficient_quota.json"));
  });

  it("a missing bearer token gets OpenRouter's recorded 401; bad requests its 400", async () => {
    const res = await fetch(`${mock.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(PLAIN),
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual(fixtureJson("openrouter.error.401.json"));
    const bad = await chat(mock, { model: "openai/gpt-4.1-mini" });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ error: { code: 400, message: expect.any(String) } });
  });

  it("error-event-mid-stream: half the events, then OpenRouter's error chunk (finish_reason error), no [DONE]", async () => {
    const res = await chat(mock, STREAM, script({ fault: "error-event-mid-stream" }));
    expect(res.status).toBe(200);
    const { text, error } = await readAll(res);
    expect(error).toBeUndefined();
    expect(text).not.toContain("[DONE]");
    const chunks = dataEvents(text);
    const last = chunks.at(-1)!;
    const recorded = JSON.parse(sseData(fixtureText("openrouter.chat.stream.midstream_error.sse"))[0]!) as Json;
    expect(last).toEqual({ ...recorded, id: chunks[0]!.id, created: chunks[0]!.created, model: PLAIN.model, provider: "OpenAI" });
    expect(last.error).toEqual({ code: "server_error", message: "Provider disconnected unexpectedly" });
    expect(last.choices[0].finish_reason).toBe("error");
  });

  it("reset-mid-stream cuts an OpenRouter stream after the comment and half the events", async () => {
    const { text, error } = await readAll(await chat(mock, STREAM, script({ fault: "reset-mid-stream" })));
    expect(error).toBeInstanceOf(TypeError);
    expect(text.startsWith(": OPENROUTER PROCESSING\n\n")).toBe(true);
  });
});
