// The error handler plugin: every failure answered from the error table, in
// the route's dialect, with x-should-retry; fastify's own errors mapped once.
import type { ErrorBody, GatewayError } from "@gateway/proto";
import Fastify from "fastify";
import { describe, expect, it } from "vitest";
import { errorHandler } from "../../../src/app/plugins/error-handler";
import type { ClientDialect } from "../../../src/dialects/client-dialect";
import { openAiChat } from "../../../src/dialects/openai/openai-chat-dialect";
import { clientClosed, controlPlaneUnavailable, insufficientCredits, spendCapExceeded, upstreamFailure } from "../../../src/errors";
import "../../../src/request-context";

/** A dialect that writes errors its own way, to see the handler use the route's dialect. */
const shouting: ClientDialect = { ...openAiChat, errorBody: (error: GatewayError) => ({ ERROR: String(error.code).toUpperCase() }) };

async function app(logged: unknown[] = []) {
  const instance = Fastify({
    bodyLimit: 10,
    logger: { level: "error", stream: { write: (line: string) => logged.push(JSON.parse(line)) } },
  });
  await instance.register(errorHandler, { bodyLimitBytes: 10 });
  instance.get("/throw/:what", async (request) => {
    const what = (request.params as { what: string }).what;
    if (what === "credits") throw insufficientCredits();
    if (what === "cap") throw spendCapExceeded(3600);
    if (what === "outage") throw controlPlaneUnavailable();
    if (what === "upstream") throw upstreamFailure(503, { retryAfterSeconds: 2 });
    if (what === "gone") throw clientClosed();
    throw new TypeError("a bug");
  });
  instance.get("/shout", { config: { dialect: shouting } }, async () => {
    throw insufficientCredits();
  });
  instance.post("/small", async () => ({}));
  return instance;
}

const error = (body: string) => (JSON.parse(body) as ErrorBody).error;

describe("errorHandler", () => {
  it.each<[string, number, string, string | number, string]>([
    ["credits", 402, "billing_error", "insufficient_credits", "false"],
    ["cap", 429, "billing_error", "spend_cap_exceeded", "false"],
    ["outage", 503, "service_unavailable", "control_plane_unavailable", "true"],
    ["upstream", 503, "upstream_error", 503, "true"],
  ])("answers %s with %i %s/%s and x-should-retry %s", async (what, status, type, code, retry) => {
    const response = await (await app()).inject({ url: `/throw/${what}` });
    expect(response.statusCode).toBe(status);
    expect(error(response.body)).toMatchObject({ type, code });
    expect(response.headers["x-should-retry"]).toBe(retry);
  });

  it("keeps an error's own headers (Retry-After)", async () => {
    expect((await (await app()).inject({ url: "/throw/cap" })).headers["retry-after"]).toBe("3600");
    expect((await (await app()).inject({ url: "/throw/upstream" })).headers["retry-after"]).toBe("2");
  });

  it("writes the error in the route's dialect", async () => {
    const response = await (await app()).inject({ url: "/shout" });
    expect(response.statusCode).toBe(402);
    expect(response.json()).toEqual({ ERROR: "INSUFFICIENT_CREDITS" });
  });

  it("answers anything unexpected with a logged 500 internal_error, never its message", async () => {
    const logged: unknown[] = [];
    const response = await (await app(logged)).inject({ url: "/throw/bug" });
    expect(response.statusCode).toBe(500);
    expect(error(response.body)).toEqual({
      type: "server_error",
      code: "internal_error",
      message: "The gateway failed to handle the request.",
      param: null,
    });
    expect(response.headers["x-should-retry"]).toBe("false");
    expect(logged).toMatchObject([{ msg: "unexpected error", err: { message: "a bug" } }]);
  });

  it("maps fastify's body limit to 413 body_too_large", async () => {
    const response = await (await app()).inject({
      method: "POST",
      url: "/small",
      headers: { "content-type": "application/json" },
      payload: '{"a":"more than ten bytes"}',
    });
    expect(response.statusCode).toBe(413);
    expect(error(response.body)).toMatchObject({ code: "body_too_large", message: "The request body is larger than 10 bytes." });
  });

  it("maps fastify's other 4xx to 400 invalid_body", async () => {
    const response = await (await app()).inject({
      method: "POST",
      url: "/small",
      headers: { "content-type": "application/xml" },
      payload: "<a/>",
    });
    expect(response.statusCode).toBe(400);
    expect(error(response.body)).toMatchObject({ code: "invalid_body", message: "The request body could not be read." });
  });

  it("sends nothing for a client that is gone (499)", async () => {
    const response = await (await app()).inject({ url: "/throw/gone" });
    expect(response.statusCode).toBe(499);
    expect(response.body).toBe("");
  });

  it("answers an unknown route with 404 in the OpenAI shape", async () => {
    const response = await (await app()).inject({ url: "/nowhere?x=1" });
    expect(response.statusCode).toBe(404);
    expect(error(response.body)).toEqual({
      type: "invalid_request_error",
      code: "not_found",
      message: "No route for GET /nowhere.",
      param: null,
    });
  });
});
