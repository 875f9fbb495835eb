// Image generation through `auto` (spec: chat completions generate images when `modalities` asks
// for them). The curated catalogue has an image generator in every tier, so `auto` and
// `auto:<tier>` with image modalities route to one; a text request never goes to one.
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { costToNano, marker, startStack, type GatewayStack, type TestProject } from "../harness/gateway-stack";

describe("image generation through auto, on the default catalogue", () => {
  let stack: GatewayStack;
  let project: TestProject;
  let client: OpenAI;

  beforeAll(async () => {
    stack = await startStack({ backend: "pglite", mockAsProviders: ["google", "openrouter"] });
    project = await stack.createProject({ balanceUsd: "20.00" });
    client = new OpenAI({ apiKey: project.key, baseURL: `${stack.url}/v1`, maxRetries: 0 });
  });

  afterAll(async () => {
    await stack?.stop();
  });

  /** The request's ledger entries as debits (the ledger stores them negative). */
  const debit = async (requestId: string | null) =>
    (await stack.ledger(project.projectId)).filter((entry) => entry.request_id === requestId).map((entry) => -BigInt(entry.amount.nano));

  it.each([
    ["auto", "google/gemini-2.5-flash-image"],
    ["auto:economy", "google/gemini-2.5-flash-image"],
    ["auto:balanced", "google/gemini-2.5-flash-image"],
    ["auto:quality", "google/gemini-3-pro-image-preview"],
  ])("%s with image modalities answers with an image from %s, billed", async (model, generator) => {
    const { data, response } = await client.chat.completions
      .create({ model, modalities: ["image", "text"] as never, messages: [{ role: "user", content: `A red dot ${marker()}` }] })
      .withResponse();
    expect(response.headers.get("x-service-model")).toBe(generator);
    const images = (data.choices[0]!.message as { images?: { image_url: { url: string } }[] }).images ?? [];
    expect(images.length).toBeGreaterThan(0);
    for (const image of images) expect(image.image_url.url).toMatch(/^data:image\/[a-z]+;base64,/);
    const cost = (data.usage as unknown as { cost: number }).cost;
    expect(cost).toBeGreaterThan(0);
    expect(await debit(response.headers.get("x-request-id"))).toEqual([costToNano(cost)]);
  });

  it("a text request through auto never goes to an image generator, even as a fallback", async () => {
    for (const model of ["auto:economy", "auto:balanced", "auto:quality"]) {
      const response = await stack.post("/v1/chat/completions", project.key, {
        model,
        service: {},
        messages: [{ role: "user", content: marker() }],
      });
      expect(response.status).toBe(200);
      const reason = ((await response.json()) as { service: { reason: { candidates: string[]; excluded: { model: string }[] } } }).service
        .reason;
      const named = [...reason.candidates, ...reason.excluded.map((entry) => entry.model)];
      expect(named.some((id) => id.endsWith("-image") || id.endsWith("-image-preview"))).toBe(false);
      expect(reason.candidates.length).toBeGreaterThan(0);
    }
  });
});
