// The body parser plugin: any declared type is read as JSON; a body that is
// not JSON is a 400 invalid_body (through the error handler).
import Fastify from "fastify";
import { describe, expect, it } from "vitest";
import { bodyParser } from "../../../src/app/plugins/body-parser";
import { errorHandler } from "../../../src/app/plugins/error-handler";

async function app() {
  const instance = Fastify();
  await instance.register(bodyParser);
  await instance.register(errorHandler, { bodyLimitBytes: 1_000 });
  instance.post("/echo", async (request) => ({ body: request.body ?? null }));
  return instance;
}

describe("bodyParser", () => {
  it.each(["application/json", "text/plain", "application/x-www-form-urlencoded"])("reads a %s body as JSON", async (type) => {
    const response = await (await app()).inject({
      method: "POST",
      url: "/echo",
      headers: { "content-type": type },
      payload: '{"a":[1,2]}',
    });
    expect(response.json()).toEqual({ body: { a: [1, 2] } });
  });

  it("gives an empty body as undefined", async () => {
    const response = await (await app()).inject({
      method: "POST",
      url: "/echo",
      headers: { "content-type": "application/json" },
      payload: "",
    });
    expect(response.json()).toEqual({ body: null });
  });

  it("answers a body that is not JSON with 400 invalid_body", async () => {
    const response = await (await app()).inject({
      method: "POST",
      url: "/echo",
      headers: { "content-type": "application/json" },
      payload: "{nope",
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({
      error: { type: "invalid_request_error", code: "invalid_body", message: "The request body is not valid JSON.", param: null },
    });
  });

  it.each([
    ["messages", (inner: string) => `{"messages":[{"role":"user","content":${inner}}]}`],
    ["tools", (inner: string) => `{"tools":${inner}}`],
    ["an object", (inner: string) => `{"metadata":${inner.replaceAll("[", '{"a":').replaceAll("]", "}")}}`],
  ])("answers a body nested 50,000 levels deep (in %s) with 400 invalid_body, and stays up", async (_where, body) => {
    const instance = await app();
    const deep = `${"[".repeat(50_000)}1${"]".repeat(50_000)}`;
    const response = await instance.inject({
      method: "POST",
      url: "/echo",
      headers: { "content-type": "application/json" },
      payload: body(deep),
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toMatchObject({ code: "invalid_body", message: "The request body nests deeper than 64 levels." });
    const shallow = await instance.inject({ method: "POST", url: "/echo", payload: body(`${"[".repeat(60)}1${"]".repeat(60)}`) });
    expect(shallow.statusCode).toBe(200);
  });
});
