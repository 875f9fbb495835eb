// Script `assembled` on the Gemini persona: generateContent answers with the
// stream recording of the same shape merged into one GenerateContentResponse;
// it must agree exactly with what a client accumulates from the stream.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { summarizeGenerate } from "./accumulate";
import { CONTENTS, fixtureText, gemini, geminiSseData, script, startMock } from "./helpers";
import type { Json, Mock } from "./helpers";

let mock: Mock;
beforeAll(async () => {
  mock = await startMock();
});
afterAll(() => mock.close());
beforeEach(() => mock.app.mock.reset());

const MODEL = "gemini-2.5-flash";
const SHAPES: [string, Json, string | undefined][] = [
  ["plain", { contents: CONTENTS }, "gemini.streamGenerateContent.sse"],
  [
    "tools",
    { contents: CONTENTS, tools: [{ functionDeclarations: [{ name: "customDivide", parameters: { type: "OBJECT" } }] }] },
    "gemini.streamGenerateContent.tools.sse",
  ],
  [
    "json_schema",
    { contents: CONTENTS, generationConfig: { responseMimeType: "application/json", responseJsonSchema: { type: "object" } } },
    undefined,
  ],
  ["system instruction", { contents: CONTENTS, systemInstruction: { parts: [{ text: "I say high you say low" }] } }, undefined],
  [
    "image output",
    { contents: CONTENTS, generationConfig: { responseModalities: ["IMAGE", "TEXT"] } },
    "gemini.streamGenerateContent.image.sse",
  ],
];
const USAGE = { usage: { prompt_tokens: 42, completion_tokens: 7 } };

const events = (text: string): Json[] => geminiSseData(text).map((d) => JSON.parse(d) as Json);

async function streamed(body: Json, scripted: Json): Promise<Json[]> {
  const res = await gemini(mock, `${MODEL}:streamGenerateContent?alt=sse`, body, { "x-goog-api-key": "g", ...script(scripted) });
  expect(res.status).toBe(200);
  return events(await res.text());
}

async function assembled(body: Json, scripted: Json = {}): Promise<Json> {
  const res = await gemini(mock, `${MODEL}:generateContent`, body, { "x-goog-api-key": "g", ...script({ ...scripted, assembled: true }) });
  expect(res.status).toBe(200);
  return (await res.json()) as Json;
}

describe("assembled: Gemini persona", () => {
  for (const [name, body, recording] of SHAPES) {
    it(`${name}: agrees with the accumulated stream, recorded and scripted usage`, async () => {
      for (const scripted of [{}, USAGE]) {
        const fromStream = summarizeGenerate(await streamed(body, scripted));
        const answer = await assembled(body, scripted);
        expect(summarizeGenerate([answer])).toEqual(fromStream);
        expect(answer).toMatchObject({ modelVersion: MODEL, responseId: expect.stringMatching(/^resp-mock-\d+$/) });
        // consecutive text parts are joined: no two text parts in a row
        const parts = answer.candidates[0].content.parts as Json[];
        expect(parts.some((part, i) => i > 0 && typeof part.text === "string" && typeof parts[i - 1]!.text === "string")).toBe(false);
      }
      if (recording) expect(summarizeGenerate([await assembled(body)])).toEqual(summarizeGenerate(events(fixtureText(recording))));
      expect((await assembled(body, USAGE)).usageMetadata).toMatchObject({
        promptTokenCount: 42,
        candidatesTokenCount: 7,
        totalTokenCount: 49,
      });
    });
  }

  it("plain: one text part, finishReason and usageMetadata of the final chunk", async () => {
    const recorded = events(fixtureText("gemini.streamGenerateContent.sse"));
    const answer = await assembled({ contents: CONTENTS });
    const last = recorded.at(-1)!;
    expect(answer).toEqual({
      ...last,
      modelVersion: MODEL,
      responseId: answer.responseId,
      candidates: [{ ...last.candidates[0], content: { parts: [{ text: summarizeGenerate(recorded).text }], role: "model" } }],
    });
  });

  it("image output: the same answer as without the script (the image answer is already the assembled stream)", async () => {
    const body = { contents: CONTENTS, generationConfig: { responseModalities: ["IMAGE", "TEXT"] } };
    const plain = (await (await gemini(mock, `${MODEL}:generateContent`, body)).json()) as Json;
    const answer = await assembled(body);
    expect({ ...answer, responseId: plain.responseId }).toEqual(plain);
    expect(answer.candidates[0].content.parts.map((p: Json) => Object.keys(p))).toEqual([["text"], ["inlineData"]]);
  });

  it("has no effect on stream requests", async () => {
    const normalize = (text: string) => text.replace(/resp-mock-\d+/g, "ID");
    const target = `${MODEL}:streamGenerateContent?alt=sse`;
    const plain = await (await gemini(mock, target, { contents: CONTENTS })).text();
    const withScript = await (
      await gemini(mock, target, { contents: CONTENTS }, { "x-goog-api-key": "g", ...script({ assembled: true }) })
    ).text();
    expect(normalize(withScript)).toBe(normalize(plain));
  });
});
