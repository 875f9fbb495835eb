import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { fixtureJson, post, script, startMock } from "./helpers";
import type { Json, Mock } from "./helpers";

let mock: Mock;
beforeAll(async () => {
  mock = await startMock();
});
afterAll(() => mock.close());
beforeEach(() => mock.app.mock.reset());

async function embed(body: Json, headers: Record<string, string> = {}) {
  const res = await post(mock, "/v1/embeddings", body, headers);
  return { status: res.status, body: (await res.json()) as Json };
}

/** Independent decoder: base64 of little-endian float32 values. */
function decode(encoded: string): number[] {
  const bytes = Buffer.from(encoded, "base64");
  const out: number[] = [];
  for (let i = 0; i < bytes.length; i += 4) out.push(bytes.readFloatLE(i));
  return out;
}

describe("POST /v1/embeddings", () => {
  it("answers a single string like the recorded response (model and usage per request)", async () => {
    const input = "The food was delicious and the waiter...";
    const { status, body } = await embed({ model: "text-embedding-3-small", input, encoding_format: "float" });
    expect(status).toBe(200);
    const recorded = fixtureJson("openai.embeddings.response.json");
    const tokens = Math.ceil(input.length / 4);
    expect(body).toEqual({ ...recorded, model: "text-embedding-3-small", usage: { prompt_tokens: tokens, total_tokens: tokens } });
  });

  it("returns one entry per input, indexed in order", async () => {
    const { body } = await embed({ model: "m", input: ["a", "bb", "ccccc"] });
    expect(body.data.map((d: Json) => d.index)).toEqual([0, 1, 2]);
    expect(body.usage).toEqual({ prompt_tokens: 1 + 1 + 2, total_tokens: 4 });
  });

  it("counts a token array as one input and an array of token arrays as several", async () => {
    const one = await embed({ model: "m", input: [101, 202, 303] });
    expect(one.body.data).toHaveLength(1);
    expect(one.body.usage.prompt_tokens).toBe(3);
    const two = await embed({ model: "m", input: [[1, 2], [3]] });
    expect(two.body.data).toHaveLength(2);
    expect(two.body.usage.prompt_tokens).toBe(3);
  });

  it("encodes base64 exactly like the recorded batch response", async () => {
    const { body } = await embed({ model: "text-embedding-3-small", input: ["first", "second"], encoding_format: "base64" });
    const recorded = fixtureJson("openai.embeddings.batch_base64.response.json");
    expect(body.data).toEqual(recorded.data);
    expect(decode(body.data[0].embedding)).toEqual([0.0023064255, -0.009327292, -0.0028842222].map(Math.fround));
  });

  it("derives `dimensions` floats deterministically from the text; base64 round-trips to the float values", async () => {
    const request = { model: "m", input: ["alpha", "beta"], dimensions: 16 };
    const floats = await embed(request);
    const again = await embed(request);
    const base64 = await embed({ ...request, encoding_format: "base64" });

    const [alpha, beta] = floats.body.data.map((d: Json) => d.embedding as number[]);
    expect(alpha).toHaveLength(16);
    expect(again.body.data[0].embedding).toEqual(alpha);
    expect(beta).not.toEqual(alpha);
    // Normalised like real embeddings.
    expect(Math.hypot(...alpha!)).toBeCloseTo(1, 5);
    expect(decode(base64.body.data[0].embedding)).toEqual(alpha);
    expect(decode(base64.body.data[1].embedding)).toEqual(beta);
  });

  it("lets a script override prompt tokens", async () => {
    const { body } = await embed({ model: "m", input: "x" }, script({ usage: { prompt_tokens: 42, completion_tokens: 0 } }));
    expect(body.usage).toEqual({ prompt_tokens: 42, total_tokens: 42 });
  });

  it("rejects bad inputs with OpenAI-style 400s", async () => {
    expect((await embed({ model: "m", input: [] })).status).toBe(400);
    expect((await embed({ model: "m", input: [{}] })).body.error.param).toBe("input");
    expect((await embed({ model: "m", input: "x", dimensions: 0 })).body.error.param).toBe("dimensions");
    expect((await embed({ model: "m", input: "x", encoding_format: "hex" })).body.error.param).toBe("encoding_format");
    expect((await embed({ input: "x" })).body.error.message).toBe("you must provide a model parameter");
  });
});
