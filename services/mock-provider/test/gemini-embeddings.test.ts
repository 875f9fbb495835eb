// Gemini persona, embeddings: one vector per content, values from the
// recordings repeated or cut to outputDimensionality (default: the model's size).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixtureJson, gemini, script, startMock } from "./helpers";
import type { Json, Mock } from "./helpers";

let mock: Mock;
beforeAll(async () => {
  mock = await startMock();
});
afterAll(() => mock.close());

const CONTENT = { parts: [{ text: "Hello world" }] };
const RECORDED: number[] = fixtureJson("gemini.embedContent.response.json").embedding.values;
const BATCH: number[][] = fixtureJson("gemini.batchEmbedContents.response.json").embeddings.map((e: Json) => e.values);

const cycle = (values: number[], length: number) => Array.from({ length }, (_, i) => values[i % values.length]);

async function post(target: string, body: unknown, headers?: Record<string, string>): Promise<{ status: number; body: Json }> {
  const res = await gemini(mock, target, body, headers && { "x-goog-api-key": "g", ...headers });
  return { status: res.status, body: (await res.json()) as Json };
}

describe("Gemini persona: embedContent", () => {
  it("outputDimensionality (or output_dimensionality) sets the length; values cycle through the recording", async () => {
    const cut = await post("gemini-embedding-001:embedContent", { content: CONTENT, outputDimensionality: 3 });
    expect(cut).toEqual({ status: 200, body: { embedding: { values: RECORDED.slice(0, 3) } } });
    const stretched = await post("gemini-embedding-001:embedContent", {
      content: CONTENT,
      output_dimensionality: 256,
      task_type: "RETRIEVAL_DOCUMENT",
    });
    expect(stretched.body.embedding.values).toEqual(cycle(RECORDED, 256));
  });

  it("defaults to the model's size: 3072 for gemini-embedding-001, 768 for text-embedding-004", async () => {
    expect((await post("gemini-embedding-001:embedContent", { content: CONTENT })).body.embedding.values).toHaveLength(3072);
    expect((await post("text-embedding-004:embedContent", { content: CONTENT })).body.embedding.values).toHaveLength(768);
  });

  it("rejects a missing content or a bad dimension with INVALID_ARGUMENT", async () => {
    for (const body of [
      {},
      { content: { parts: [] } },
      { content: CONTENT, outputDimensionality: 0 },
      { content: CONTENT, outputDimensionality: 4000 },
    ]) {
      const res = await post("gemini-embedding-001:embedContent", body);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 400, status: "INVALID_ARGUMENT" });
    }
  });

  it("faults and statuses apply (a truncated body, a 429)", async () => {
    const truncated = await gemini(
      mock,
      "gemini-embedding-001:embedContent",
      { content: CONTENT },
      { "x-goog-api-key": "g", ...script({ fault: "reset-mid-stream" }) },
    );
    await expect(truncated.json()).rejects.toThrow();
    const limited = await post("gemini-embedding-001:embedContent", { content: CONTENT }, script({ status: 429 }));
    expect(limited).toEqual({ status: 429, body: fixtureJson("gemini.error.429.resource_exhausted.json") });
  });
});

describe("Gemini persona: batchEmbedContents", () => {
  it("one embedding per request entry, entry i from recorded vector i, each with its own dimension", async () => {
    const requests = [4, 2, 5, 7].map((d) => ({ model: "models/gemini-embedding-001", content: CONTENT, outputDimensionality: d }));
    const res = await post("gemini-embedding-001:batchEmbedContents", { requests });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      embeddings: [
        { values: BATCH[0]!.slice(0, 4) },
        { values: BATCH[1]!.slice(0, 2) },
        { values: BATCH[2]!.slice(0, 5) },
        { values: cycle(BATCH[0]!, 7) },
      ],
    });
  });

  it("the recorded request gets 3 full-size vectors", async () => {
    const res = await post("gemini-embedding-001:batchEmbedContents", {
      requests: ["a", "b", "c"].map((text) => ({ model: "models/gemini-embedding-001", content: { parts: [{ text }] } })),
    });
    expect(res.body.embeddings.map((e: Json) => e.values.length)).toEqual([3072, 3072, 3072]);
  });

  it("rejects missing or malformed entries", async () => {
    for (const body of [{}, { requests: [] }, { requests: [42] }, { requests: [{ content: CONTENT }, {}] }]) {
      const res = await post("gemini-embedding-001:batchEmbedContents", body);
      expect(res.status).toBe(400);
      expect(res.body.error.status).toBe("INVALID_ARGUMENT");
    }
  });
});
