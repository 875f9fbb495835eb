import { describe, expect, it } from "vitest";
import { GatewayError, modelNotFound, routeNotFound, spendCapExceeded, upstreamFailure, upstreamUnreachable } from "../../src/errors";

describe("upstreamFailure", () => {
  it.each<[number, string, string]>([
    [429, "rate_limit_error", "The upstream provider is rate limiting requests."],
    [400, "upstream_rejected", "The upstream provider rejected the request."],
    [401, "upstream_rejected", "The upstream provider rejected the request."],
    [403, "upstream_rejected", "The upstream provider rejected the request."],
    [404, "upstream_rejected", "The upstream provider rejected the request."],
    [413, "upstream_rejected", "The upstream provider rejected the request."],
    [422, "upstream_rejected", "The upstream provider rejected the request."],
    [500, "upstream_error", "The upstream provider failed to answer."],
    [502, "upstream_error", "The upstream provider failed to answer."],
    [503, "upstream_error", "The upstream provider failed to answer."],
    [529, "upstream_error", "The upstream provider failed to answer."],
  ])("%d -> %s", (status, type, message) => {
    const error = upstreamFailure(status);
    expect(error).toBeInstanceOf(GatewayError);
    expect({ status: error.status, type: error.type, code: error.code, message: error.message, headers: error.headers }).toEqual({
      status,
      type,
      code: status,
      message,
      headers: {},
    });
  });

  it("renders the OpenAI-style error body with the numeric code", () => {
    expect(upstreamFailure(502).toBody()).toEqual({
      error: { type: "upstream_error", code: 502, message: "The upstream provider failed to answer.", param: null },
    });
  });

  it("never mentions the status number in the message", () => {
    for (let status = 400; status < 600; status++) expect(upstreamFailure(status).message).not.toMatch(/\d/);
  });
});

describe("other constructors", () => {
  it("upstreamUnreachable is 504 upstream_error with code 504", () => {
    const error = upstreamUnreachable();
    expect({ status: error.status, type: error.type, code: error.code }).toEqual({ status: 504, type: "upstream_error", code: 504 });
  });

  it("spendCapExceeded carries retry-after", () => {
    const error = spendCapExceeded(3600);
    expect({ status: error.status, code: error.code, headers: error.headers }).toEqual({
      status: 429,
      code: "spend_cap_exceeded",
      headers: { "retry-after": "3600" },
    });
  });
});

describe("errors quoting the request", () => {
  it("quote at most the start of a 1 MiB path or model id", () => {
    const huge = "x".repeat(1024 * 1024);
    for (const error of [routeNotFound("GET", `/v1/${huge}`), modelNotFound(huge)]) {
      expect(error.message.length).toBeLessThan(400);
      expect(error.message).toContain("more characters)");
    }
  });
});
