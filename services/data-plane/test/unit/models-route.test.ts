// GET /v1/models/{id}: one entry in the list's shape, by exact id (a slash sent
// as is or as %2F), alias or unambiguous bare name; unknown ids get a 404 in
// OpenAI's shape, ambiguous bare names the 400 that lists them.
import Fastify from "fastify";
import { describe, expect, it } from "vitest";
import { errorHandler } from "../../src/app/plugins/error-handler";
import { buildSnapshot, type CatalogueSnapshot } from "../../src/catalogue/catalogue-snapshot";
import { registerModelsRoute } from "../../src/routes/models";
import { catalogueModel, protoPrice } from "../support/catalogue-model";

const price = protoPrice("400000000", "1600000000");
const path = (provider: string, upstreamModel: string) => ({ provider, upstreamModel, credentialsRef: "", price });

const catalogue = buildSnapshot({
  revision: "r",
  models: [
    catalogueModel("openai/gpt-4.1-mini", [path("openai", "gpt-4.1-mini")]),
    catalogueModel("acme/twin", [path("openrouter", "acme/twin")]),
    catalogueModel("other/twin", [path("openrouter", "other/twin")]),
    catalogueModel("meta/llama-inventory", [path("openrouter", "meta/llama-inventory")], { curated: false }),
    catalogueModel("anthropic/claude-sonnet-4", [
      {
        provider: "anthropic",
        upstreamModel: "claude-sonnet-4-20250514",
        credentialsRef: "",
        price: {
          inputNanoPerM: "3000000000",
          outputNanoPerM: "15000000000",
          cachedInputNanoPerM: "300000000",
          cacheWrite_5mNanoPerM: "3750000000",
          cacheWrite_1hNanoPerM: "6000000000",
          webSearchNano: "10000000",
          verified: true,
          source: "test",
          longContext: { aboveInputTokens: 200000, rates: { inputNanoPerM: "6000000000", outputNanoPerM: "22500000000" } },
          serviceTiers: { priority: { inputNanoPerM: "5250000000" } },
          // The 1-hour write, the search price and the tier were not checked: not shown.
          verifiedComponents: ["input", "output", "cached_input", "cache_write_5m", "long_context"],
        },
      },
    ]),
  ],
  defaults: { embeddings: "" },
});

async function app(current: () => CatalogueSnapshot | undefined = () => catalogue) {
  const instance = Fastify();
  await instance.register(errorHandler, { bodyLimitBytes: 1024 });
  registerModelsRoute(instance, current);
  return instance;
}

describe("service.pricing", () => {
  it("shows the verified components by name, in USD per million tokens (per unit for unit prices)", async () => {
    const entry = (await (await app()).inject({ url: "/v1/models/anthropic/claude-sonnet-4" })).json();
    expect(entry.service.pricing).toEqual({
      input: 3,
      output: 15,
      cached_input: 0.3,
      cache_write_5m: 3.75,
      long_context: { above_input_tokens: 200000, input: 6, output: 22.5 },
    });
  });
});

describe("GET /v1/models/{id}", () => {
  it("answers one entry, the same as the list's, for an id with its slash sent as %2F or as is", async () => {
    const instance = await app();
    const listed = (await instance.inject({ url: "/v1/models" }))
      .json()
      .data.find((entry: { id: string }) => entry.id === "openai/gpt-4.1-mini");
    for (const url of ["/v1/models/openai%2Fgpt-4.1-mini", "/v1/models/openai/gpt-4.1-mini"]) {
      const response = await instance.inject({ url });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual(listed);
    }
    expect(listed).toMatchObject({ object: "model", owned_by: "openai", service: { pricing: { input: 0.4, output: 1.6 } } });
  });

  it("answers aliases, inventory models and unambiguous bare names (with the full id)", async () => {
    const instance = await app();
    expect((await instance.inject({ url: "/v1/models/auto:economy" })).json()).toEqual({
      id: "auto:economy",
      object: "model",
      created: 0,
      owned_by: "gateway",
      service: { alias: true },
    });
    expect((await instance.inject({ url: "/v1/models/meta%2Fllama-inventory" })).json().id).toBe("meta/llama-inventory");
    expect((await instance.inject({ url: "/v1/models/GPT-4.1-mini" })).json().id).toBe("openai/gpt-4.1-mini");
  });

  it("answers an unknown id with 404 model_not_found in OpenAI's shape", async () => {
    const instance = await app();
    for (const id of ["openai%2Fgpt-9", "nothing-like-it", "auto:fastest"]) {
      const response = await instance.inject({ url: `/v1/models/${id}` });
      expect(response.statusCode).toBe(404);
      expect(response.json()).toEqual({
        error: {
          type: "invalid_request_error",
          code: "model_not_found",
          message: expect.stringContaining(decodeURIComponent(id)),
          param: null,
        },
      });
    }
  });

  it("answers a bare name of several models with 400 model_ambiguous listing them", async () => {
    const response = await (await app()).inject({ url: "/v1/models/twin" });
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toMatchObject({ code: "model_ambiguous", message: expect.stringContaining("acme/twin, other/twin") });
  });

  it("answers 503 before the first catalogue arrived", async () => {
    const response = await (await app(() => undefined)).inject({ url: "/v1/models/openai%2Fgpt-4.1-mini" });
    expect(response.statusCode).toBe(503);
    expect(response.json().error.code).toBe("control_plane_unavailable");
  });
});
