import { describe, expect, it } from "vitest";
import { thrown } from "../support/thrown";
import { parseServiceBlock, SERVICE_LIST_LIMIT } from "../../src/routing/service-block";

describe("parseServiceBlock", () => {
  it.each([undefined, null])("returns undefined for %s", (value) => {
    expect(parseServiceBlock(value)).toBeUndefined();
  });

  it.each<[string, unknown, unknown]>([
    ["empty block", {}, { tier: undefined, purpose: undefined, allow: undefined, route: "fallback" }],
    [
      "every field",
      {
        tier: "quality",
        purpose: "code",
        allow: ["openai/gpt-4.1", "openai/gpt-4.1-mini"],
        route: ["openai/gpt-4.1", "openai/gpt-4.1-mini"],
      },
      {
        tier: "quality",
        purpose: "code",
        allow: ["openai/gpt-4.1", "openai/gpt-4.1-mini"],
        route: ["openai/gpt-4.1", "openai/gpt-4.1-mini"],
      },
    ],
    ["tier economy", { tier: "economy" }, { tier: "economy", purpose: undefined, allow: undefined, route: "fallback" }],
    ["route pinned", { route: "pinned" }, { tier: undefined, purpose: undefined, allow: undefined, route: "pinned" }],
    ["route fallback", { route: "fallback" }, { tier: undefined, purpose: undefined, allow: undefined, route: "fallback" }],
    ["route null defaults to fallback", { route: null }, { tier: undefined, purpose: undefined, allow: undefined, route: "fallback" }],
    ["empty allow list", { allow: [] }, { tier: undefined, purpose: undefined, allow: [], route: "fallback" }],
    [
      "unknown keys ignored",
      { tier: "balanced", extra: 1, nested: { a: 1 } },
      { tier: "balanced", purpose: undefined, allow: undefined, route: "fallback" },
    ],
  ])("parses %s", (_name, value, expected) => {
    expect(parseServiceBlock(value)).toEqual(expected);
  });

  it("removes duplicates from route (exact) and allow (case-insensitive), keeping the first spelling in order", () => {
    const route = Array.from({ length: 1_000 }, (_, index) => (index % 2 === 0 ? "openai/gpt-4.1" : "gpt-4.1-mini"));
    const allow = ["OpenAI", "openai", "anthropic/*", "ANTHROPIC/*", "google"];
    expect(parseServiceBlock({ route, allow })).toMatchObject({
      route: ["openai/gpt-4.1", "gpt-4.1-mini"],
      allow: ["OpenAI", "anthropic/*", "google"],
    });
  });

  it(`takes ${SERVICE_LIST_LIMIT} distinct entries in route and allow`, () => {
    const ids = Array.from({ length: SERVICE_LIST_LIMIT }, (_, index) => `vendor/model-${index}`);
    expect(parseServiceBlock({ route: [...ids, ...ids], allow: ids })).toMatchObject({ route: ids, allow: ids });
  });

  it.each(["route", "allow"])("refuses a %s list of more distinct entries than the limit with 400 invalid_service", (list) => {
    const ids = Array.from({ length: 100_000 }, (_, index) => `vendor/model-${index}`);
    const error = thrown(() => parseServiceBlock({ [list]: ids }));
    expect(error).toMatchObject({
      status: 400,
      code: "invalid_service",
      message: `service.${list} may hold at most ${SERVICE_LIST_LIMIT} distinct entries.`,
    });
    expect(thrown(() => parseServiceBlock({ [list]: ids.slice(0, SERVICE_LIST_LIMIT + 1) }))).toMatchObject({ code: "invalid_service" });
  });

  it("does not copy unknown keys into the result", () => {
    expect(Object.keys(parseServiceBlock({ foo: "bar" })!).sort()).toEqual(["allow", "paths", "purpose", "route", "tier"]);
  });

  it("takes service.paths in the caller's order, duplicates removed case-insensitively (first spelling kept); null is no list", () => {
    expect(parseServiceBlock({ paths: ["bedrock", "Vertex", "BEDROCK", "vertex", "anthropic"] })!.paths).toEqual([
      "bedrock",
      "Vertex",
      "anthropic",
    ]);
    expect(parseServiceBlock({ paths: null })!.paths).toBeUndefined();
    expect(parseServiceBlock({})!.paths).toBeUndefined();
  });

  it(`refuses a service.paths of more than ${SERVICE_LIST_LIMIT} distinct entries, as route and allow`, () => {
    const names = Array.from({ length: SERVICE_LIST_LIMIT + 1 }, (_, index) => `provider-${index}`);
    expect(parseServiceBlock({ paths: [...names.slice(0, -1), ...names.slice(0, -1)] })!.paths).toEqual(names.slice(0, -1));
    expect(thrown(() => parseServiceBlock({ paths: names }))).toMatchObject({
      status: 400,
      code: "invalid_service",
      message: `service.paths may hold at most ${SERVICE_LIST_LIMIT} distinct entries.`,
    });
  });

  it.each<[string, unknown, string]>([
    ["a string", "quality", "service must be an object."],
    ["a number", 3, "service must be an object."],
    ["an array", [], "service must be an object."],
    ["unknown tier", { tier: "premium" }, "service.tier must be one of economy, balanced, quality."],
    ["tier upper case", { tier: "Quality" }, "service.tier must be one of economy, balanced, quality."],
    ["tier a number", { tier: 1 }, "service.tier must be one of economy, balanced, quality."],
    ["tier null", { tier: null }, "service.tier must be one of economy, balanced, quality."],
    ["purpose a number", { purpose: 5 }, "service.purpose must be a string."],
    ["allow a string", { allow: "openai/gpt-4.1" }, "service.allow must be an array of non-empty strings."],
    ["allow with an empty string", { allow: ["openai/gpt-4.1", ""] }, "service.allow must be an array of non-empty strings."],
    ["allow with a number", { allow: [1] }, "service.allow must be an array of non-empty strings."],
    ["route unknown word", { route: "random" }, 'service.route must be "fallback", "pinned" or a non-empty array of model ids.'],
    ["route empty array", { route: [] }, 'service.route must be "fallback", "pinned" or a non-empty array of model ids.'],
    [
      "route array with a number",
      { route: ["openai/gpt-4.1", 2] },
      'service.route must be "fallback", "pinned" or a non-empty array of model ids.',
    ],
    ["route a boolean", { route: true }, 'service.route must be "fallback", "pinned" or a non-empty array of model ids.'],
    ["paths a string", { paths: "bedrock" }, "service.paths must be a non-empty array of access path names."],
    ["paths empty", { paths: [] }, "service.paths must be a non-empty array of access path names."],
    ["paths with an empty string", { paths: ["bedrock", ""] }, "service.paths must be a non-empty array of access path names."],
    ["paths with a number", { paths: ["bedrock", 1] }, "service.paths must be a non-empty array of access path names."],
  ])("rejects %s with 400 invalid_service", (_name, value, message) => {
    const error = thrown(() => parseServiceBlock(value));
    expect({ status: error.status, type: error.type, code: error.code, message: error.message }).toEqual({
      status: 400,
      type: "invalid_request_error",
      code: "invalid_service",
      message,
    });
  });
});
