import { describe, expect, it } from "vitest";
import { reasonHeader, type Attempt, type RouteTrace } from "../../src/routing/route-trace";

const attempt = (model: string): Attempt => ({ model, path: "openai", outcome: "ok", ms: 12 });

const trace = (fields: Partial<RouteTrace>): RouteTrace => ({
  requested: "openai/gpt-4.1-mini",
  resolved: "openai/gpt-4.1-mini",
  tier: null,
  purpose: null,
  candidates: [],
  excluded: [],
  attempts: [attempt("openai/gpt-4.1-mini")],
  path: "openai",
  ...fields,
});

describe("reasonHeader", () => {
  it.each<[string, Partial<RouteTrace>, string]>([
    ["requested equals resolved", {}, "openai/gpt-4.1-mini via openai, 1 attempt"],
    ["alias", { requested: "auto:balanced" }, "auto:balanced -> openai/gpt-4.1-mini via openai, 1 attempt"],
    [
      "two attempts",
      { requested: "auto", resolved: "openai/gpt-4.1", attempts: [attempt("a/b"), attempt("openai/gpt-4.1")] },
      "auto -> openai/gpt-4.1 via openai, 2 attempts",
    ],
    ["zero attempts", { attempts: [] }, "openai/gpt-4.1-mini via openai, 0 attempts"],
    ["other path", { path: "azure" }, "openai/gpt-4.1-mini via azure, 1 attempt"],
    [
      "non-ASCII replaced",
      { requested: "gpt-4.1-mini-é", path: "prövider" },
      "gpt-4.1-mini-? -> openai/gpt-4.1-mini via pr?vider, 1 attempt",
    ],
    ["control characters replaced", { requested: "a\r\nb", path: "x\ty" }, "a??b -> openai/gpt-4.1-mini via x?y, 1 attempt"],
    ["emoji replaced per UTF-16 unit", { requested: "😀" }, "?? -> openai/gpt-4.1-mini via openai, 1 attempt"],
  ])("%s", (_name, fields, expected) => {
    expect(reasonHeader(trace(fields))).toBe(expected);
  });

  it("says the attempts are not over when asked before the outcome is known", () => {
    expect(reasonHeader(trace({ requested: "auto:balanced" }), true)).toBe(
      "auto:balanced -> openai/gpt-4.1-mini via openai, 1 attempt so far",
    );
    expect(reasonHeader(trace({ max_tokens_capped: 100 }), true)).toBe(
      "openai/gpt-4.1-mini via openai, 1 attempt so far, max_tokens capped to 100",
    );
  });
});
