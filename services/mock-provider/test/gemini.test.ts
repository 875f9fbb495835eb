// Gemini persona, generateContent / streamGenerateContent: the recorded answer
// chosen by request shape, byte-faithful SSE (CRLF, no [DONE]), the JSON-array
// stream without ?alt=sse, image output, and usage scripts.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { CONTENTS, fixtureJson, fixtureText, gemini, geminiSseData, script, startMock } from "./helpers";
import type { Json, Mock } from "./helpers";

let mock: Mock;
beforeAll(async () => {
  mock = await startMock();
});
afterAll(() => mock.close());
beforeEach(() => mock.app.mock.reset());

const MODEL = "gemini-2.5-flash";
const PLAIN = { contents: CONTENTS };
const TOOLS = { contents: CONTENTS, tools: [{ functionDeclarations: [{ name: "customDivide", parameters: { type: "OBJECT" } }] }] };
const JSON_SCHEMA = {
  contents: CONTENTS,
  generationConfig: { responseMimeType: "application/json", responseJsonSchema: { type: "object" } },
};
const SYSTEM = { contents: CONTENTS, systemInstruction: { parts: [{ text: "I say high you say low" }] } };
const IMAGE = { contents: CONTENTS, generationConfig: { responseModalities: ["IMAGE", "TEXT"] } };

async function generate(body: Json, headers?: Record<string, string>): Promise<Json> {
  const res = await gemini(mock, `${MODEL}:generateContent`, body, headers && { "x-goog-api-key": "g", ...headers });
  expect(res.status).toBe(200);
  return (await res.json()) as Json;
}

function expectRecording(body: Json, recorded: Json) {
  expect(body).toEqual({ ...recorded, modelVersion: MODEL, responseId: body.responseId });
  expect(body.responseId).toMatch(/^resp-mock-\d+$/);
  expect(Object.keys(body)).toEqual(Object.keys(recorded));
}

/** The recorded SSE transcript with responseId and modelVersion replaced as the mock does. */
function recordedSse(name: string, responseId: string): string {
  const first = JSON.parse(geminiSseData(fixtureText(name))[0]!) as Json;
  return fixtureText(name)
    .replaceAll(`"modelVersion":"${first.modelVersion}"`, `"modelVersion":"${MODEL}"`)
    .replaceAll(`"responseId":"${first.responseId}"`, `"responseId":"${responseId}"`);
}

async function sse(body: Json, headers: Record<string, string> = {}): Promise<string> {
  const res = await gemini(mock, `${MODEL}:streamGenerateContent?alt=sse`, body, { "x-goog-api-key": "g", ...headers });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("text/event-stream");
  return res.text();
}

describe("Gemini persona: generateContent by request shape", () => {
  it.each([
    ["plain", PLAIN, "gemini.generateContent.response.json"],
    ["tools (functionDeclarations)", TOOLS, "gemini.generateContent.tools.response.json"],
    [
      "tools, last content a functionResponse -> text",
      {
        ...TOOLS,
        contents: [
          ...CONTENTS,
          { role: "model", parts: [{ functionCall: { name: "customDivide", args: {} } }] },
          { role: "user", parts: [{ functionResponse: { name: "customDivide", response: { result: 2 } } }] },
        ],
      },
      "gemini.generateContent.response.json",
    ],
    ["json schema output", JSON_SCHEMA, "gemini.generateContent.json_schema.response.json"],
    ["system instruction", SYSTEM, "gemini.generateContent.system_instruction.response.json"],
  ])("%s -> %s", async (_name, body, fixture) => {
    expectRecording(await generate(body), fixtureJson(fixture));
  });

  it("snake_case fields choose the same way (the REST API accepts both)", async () => {
    const tools = await generate({ contents: CONTENTS, tools: [{ function_declarations: [{ name: "f" }] }] });
    expect(tools.candidates[0].content.parts[0].functionCall).toBeDefined();
    const json = await generate({ contents: CONTENTS, generation_config: { response_mime_type: "application/json" } });
    expectRecording(json, fixtureJson("gemini.generateContent.json_schema.response.json"));
    const system = await generate({ contents: CONTENTS, system_instruction: { parts: [{ text: "x" }] } });
    expect(system.candidates[0].content.parts[0].text).toBe("low");
  });

  it("responseModalities IMAGE -> the recorded image stream assembled into one response", async () => {
    const body = await generate(IMAGE);
    const chunks = geminiSseData(fixtureText("gemini.streamGenerateContent.image.sse")).map((d) => JSON.parse(d) as Json);
    const text = chunks
      .flatMap((c) => c.candidates[0].content.parts ?? [])
      .filter((p: Json) => "text" in p)
      .map((p: Json) => p.text)
      .join("");
    const image = chunks.flatMap((c) => c.candidates[0].content.parts ?? []).find((p: Json) => "inlineData" in p);
    expect(body.candidates[0].content).toEqual({ parts: [{ text }, image], role: "model" });
    expect(body.candidates[0].finishReason).toBe("STOP");
    expect(body.usageMetadata).toEqual(chunks.at(-1)!.usageMetadata);
    expect(Buffer.from(image.inlineData.data, "base64").subarray(0, 8)).toEqual(
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    );
  });

  it("responseIds count per instance; the model comes from the path", async () => {
    const a = await generate(PLAIN);
    const res = await gemini(mock, "gemini-2.0-flash-lite:generateContent?key=abc", PLAIN, {});
    const b = (await res.json()) as Json;
    expect(b.modelVersion).toBe("gemini-2.0-flash-lite");
    expect(Number(b.responseId.slice(10))).toBe(Number(a.responseId.slice(10)) + 1);
  });
});

describe("Gemini persona: streamGenerateContent", () => {
  it("?alt=sse replays gemini.streamGenerateContent.sse byte for byte (CRLF, no [DONE]), only ids replaced", async () => {
    const text = await sse(PLAIN);
    const responseId = (JSON.parse(geminiSseData(text)[0]!) as Json).responseId as string;
    expect(text).toBe(recordedSse("gemini.streamGenerateContent.sse", responseId));
    expect(text).not.toContain("[DONE]");
  });

  it("tools stream: the recorded single functionCall event", async () => {
    const text = await sse(TOOLS);
    const responseId = (JSON.parse(geminiSseData(text)[0]!) as Json).responseId as string;
    expect(text).toBe(recordedSse("gemini.streamGenerateContent.tools.sse", responseId));
  });

  it("image stream: the recorded inlineData PNG stream", async () => {
    const text = await sse(IMAGE);
    const responseId = (JSON.parse(geminiSseData(text)[0]!) as Json).responseId as string;
    expect(text).toBe(recordedSse("gemini.streamGenerateContent.image.sse", responseId));
  });

  it("shapes recorded only as a complete response stream as one final event", async () => {
    for (const [body, fixture] of [
      [JSON_SCHEMA, "gemini.generateContent.json_schema.response.json"],
      [SYSTEM, "gemini.generateContent.system_instruction.response.json"],
    ] as const) {
      const data = geminiSseData(await sse(body));
      expect(data).toHaveLength(1);
      expectRecording(JSON.parse(data[0]!) as Json, fixtureJson(fixture));
    }
  });

  it("without alt=sse the answer is one JSON array of the same responses", async () => {
    const res = await gemini(mock, `${MODEL}:streamGenerateContent`, PLAIN);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    const array = (await res.json()) as Json[];
    const recorded = geminiSseData(fixtureText("gemini.streamGenerateContent.sse")).map((d) => JSON.parse(d) as Json);
    expect(array).toEqual(recorded.map((chunk) => ({ ...chunk, modelVersion: MODEL, responseId: array[0]!.responseId })));
  });

  it("the log shows the persona, the path without the query, and the text written", async () => {
    const text = await sse(PLAIN);
    expect(mock.app.mock.lastRequest()).toMatchObject({
      persona: "gemini",
      path: `/v1beta/models/${MODEL}:streamGenerateContent`,
      url: `/v1beta/models/${MODEL}:streamGenerateContent?alt=sse`,
      responseText: text,
    });
  });
});

describe("Gemini persona: usage scripts map to usageMetadata", () => {
  const USAGE = { usage: { prompt_tokens: 11, completion_tokens: 22 } };

  it("non-stream: prompt/candidates/total replaced, thoughts dropped, one-entry details follow", async () => {
    const body = await generate(PLAIN, script(USAGE));
    expect(body.usageMetadata).toEqual({
      candidatesTokenCount: 22,
      promptTokenCount: 11,
      promptTokensDetails: [{ modality: "TEXT", tokenCount: 11 }],
      totalTokenCount: 33,
    });
  });

  it("stream: every chunk has the prompt count; the last one the scripted candidates and total", async () => {
    const chunks = geminiSseData(await sse(PLAIN, script(USAGE))).map((d) => JSON.parse(d) as Json);
    for (const chunk of chunks.slice(0, -1)) expect(chunk.usageMetadata).toMatchObject({ promptTokenCount: 11, totalTokenCount: 11 });
    expect(chunks.at(-1)!.usageMetadata).toEqual({
      candidatesTokenCount: 22,
      candidatesTokensDetails: [{ modality: "TEXT", tokenCount: 22 }],
      promptTokenCount: 11,
      promptTokensDetails: [{ modality: "TEXT", tokenCount: 11 }],
      totalTokenCount: 33,
    });
  });

  it("image stream: intermediate candidate counts are capped by the scripted total", async () => {
    const chunks = geminiSseData(await sse(IMAGE, script({ usage: { prompt_tokens: 5, completion_tokens: 20 } }))).map(
      (d) => JSON.parse(d) as Json,
    );
    expect(chunks.map((c) => c.usageMetadata.candidatesTokenCount)).toEqual([1, 17, 20, 20, 20]);
    expect(chunks.at(-1)!.usageMetadata.candidatesTokensDetails).toEqual([{ modality: "IMAGE", tokenCount: 20 }]);
  });
});
