import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { anthropicErrorEventOf } from "../src/fixtures";
import { chat, fixtureEvents, fixtureText, getJson, readAll, script, sseData, startMock, USER } from "./helpers";
import type { Json, Mock } from "./helpers";

let mock: Mock;
beforeAll(async () => {
  mock = await startMock();
});
afterAll(() => mock.close());
beforeEach(() => mock.app.mock.reset());

const STREAM = { model: "m", messages: USER, stream: true };
// Plain transcript without the usage chunk: the JSON events a default stream sends.
const EVENTS = fixtureEvents("openai.chat.stream.sse").length - 1;
const HALF = Math.floor(EVENTS / 2);

async function expectHealthy() {
  expect(await getJson(mock, "/_mock/health")).toEqual({ status: 200, body: { status: "ok" } });
  const res = await chat(mock, { model: "m", messages: USER });
  expect(res.status).toBe(200);
  expect(((await res.json()) as Json).object).toBe("chat.completion");
}

describe("faults", () => {
  it("reset-before-headers: fetch itself fails", async () => {
    await expect(chat(mock, STREAM, script({ fault: "reset-before-headers" }))).rejects.toThrow(TypeError);
    await expect(chat(mock, { model: "m", messages: USER }, script({ fault: "reset-before-headers" }))).rejects.toThrow();
    expect(mock.app.mock.lastRequest()?.responseStatus).toBeUndefined();
    await expectHealthy();
  });

  it("reset-mid-stream: half the events arrive, then the body errors without [DONE]", async () => {
    const res = await chat(mock, STREAM, script({ fault: "reset-mid-stream" }));
    expect(res.status).toBe(200);
    const { text, error } = await readAll(res);
    expect(error).toBeInstanceOf(TypeError);
    expect(text).not.toContain("[DONE]");
    expect(sseData(text)).toHaveLength(HALF);
    expect(mock.app.mock.lastRequest()?.responseText).toBe(text);
    await expectHealthy();
  });

  it("reset-mid-stream on a non-stream request truncates the JSON body", async () => {
    const res = await chat(mock, { model: "m", messages: USER }, script({ fault: "reset-mid-stream" }));
    expect(res.status).toBe(200);
    await expect(res.json()).rejects.toThrow();
    await expectHealthy();
  });

  it("malformed-sse: a garbage data line mid-stream, then the rest and [DONE]", async () => {
    const res = await chat(mock, STREAM, script({ fault: "malformed-sse" }));
    const data = sseData(await res.text());
    expect(data).toHaveLength(EVENTS + 2);
    expect(data.at(-1)).toBe("[DONE]");
    const bad = data.filter((d) => {
      try {
        JSON.parse(d);
        return false;
      } catch {
        return d !== "[DONE]";
      }
    });
    expect(bad).toHaveLength(1);
    expect(data.indexOf(bad[0]!)).toBe(HALF);
  });

  it("error-event-mid-stream: half the events, an OpenAI error event, no [DONE]", async () => {
    const res = await chat(mock, STREAM, script({ fault: "error-event-mid-stream" }));
    const { text, error } = await readAll(res);
    expect(error).toBeUndefined();
    const data = sseData(text);
    expect(data).toHaveLength(HALF + 1);
    expect(text).not.toContain("[DONE]");
    expect(JSON.parse(data.at(-1)!)).toEqual({ error: { message: expect.any(String), type: "server_error", code: null } });
  });

  it("anthropic-error-event-mid-stream: half the events, Anthropic's recorded `event: error` frame, no [DONE]", async () => {
    const res = await chat(mock, STREAM, script({ fault: "anthropic-error-event-mid-stream" }));
    expect(res.status).toBe(200);
    const { text, error } = await readAll(res);
    expect(error).toBeUndefined();
    const recorded = fixtureText("anthropic.messages.stream.error.sse");
    const errorFrame = recorded.slice(recorded.indexOf("event: error\n"));
    expect(errorFrame).toBe('event: error\ndata: {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}\n\n');
    expect(text.endsWith(errorFrame)).toBe(true);
    const before = text.slice(0, -errorFrame.length);
    expect(sseData(before)).toHaveLength(HALF);
    expect(text).not.toContain("[DONE]");
    expect(JSON.parse(errorFrame.split("\n")[1]!.slice("data: ".length))).toEqual({
      type: "error",
      error: { type: "overloaded_error", message: "Overloaded" },
    });
    expect(mock.app.mock.lastRequest()?.responseText).toBe(text);
    await expectHealthy();
  });

  it("anthropic-error-event-mid-stream leaves a non-stream response alone", async () => {
    const res = await chat(mock, { model: "m", messages: USER }, script({ fault: "anthropic-error-event-mid-stream" }));
    expect(res.status).toBe(200);
    expect(((await res.json()) as Json).object).toBe("chat.completion");
  });

  it("stall-mid-stream: half the events, then silence until the client aborts; server stays healthy", async () => {
    const controller = new AbortController();
    const res = await chat(mock, STREAM, script({ fault: "stall-mid-stream" }), controller.signal);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = "";
    while (sseData(text).length < HALF) {
      const { value, done } = await reader.read();
      if (done) throw new Error("stream ended instead of stalling");
      text += decoder.decode(value, { stream: true });
    }
    // Nothing more arrives while stalled.
    const next = await Promise.race([reader.read().then(() => "data"), new Promise((r) => setTimeout(() => r("silence"), 300))]);
    expect(next).toBe("silence");
    expect(sseData(text)).toHaveLength(HALF);
    controller.abort();
    await expectHealthy();
  });

  it("a client leaving during latencyMs gets nothing sent and breaks nothing", async () => {
    const controller = new AbortController();
    const pending = chat(mock, STREAM, script({ latencyMs: 400 }), controller.signal);
    setTimeout(() => controller.abort(), 50);
    await expect(pending).rejects.toThrow();
    const index = mock.app.mock.lastRequest()!.index;
    await new Promise((r) => setTimeout(r, 450));
    expect(mock.app.mock.requests(index)[0]?.responseStatus).toBeUndefined();
    await expectHealthy();
  });

  it("a client leaving mid chunkDelayMs stream stops the replay", async () => {
    const controller = new AbortController();
    const res = await chat(mock, STREAM, script({ chunkDelayMs: 30 }), controller.signal);
    const reader = res.body!.getReader();
    await reader.read();
    controller.abort();
    const index = mock.app.mock.lastRequest()!.index;
    await new Promise((r) => setTimeout(r, 200));
    const sent = mock.app.mock.requests(index)[0]!.responseText!;
    await new Promise((r) => setTimeout(r, 200));
    // Nothing was written after the abort was noticed.
    expect(mock.app.mock.requests(index)[0]!.responseText).toBe(sent);
    expect(sent).not.toContain("[DONE]");
    await expectHealthy();
  });
});

describe("anthropicErrorEventOf", () => {
  it("takes the `event: error` block verbatim, LF or CRLF, and insists on one", () => {
    const block = 'event: error\ndata: {"type": "error"}';
    expect(anthropicErrorEventOf(`event: ping\ndata: {}\n\n${block}\n\n`)).toBe(`${block}\n\n`);
    expect(anthropicErrorEventOf(`event: ping\r\ndata: {}\r\n\r\n${block.replace("\n", "\r\n")}`)).toBe(`${block}\n\n`);
    expect(() => anthropicErrorEventOf("event: ping\ndata: {}\n\n")).toThrow(/event: error/);
  });
});
