// What anonymous callers and tenants learn of the operator's setup (issue 33, item 15): the public
// /health of both planes says only whether the plane serves and why not (the data plane's details,
// circuits by access path and the catalogue revision among them, are on its metrics port); a model
// whose paths name a credential the data plane lacks "has no configured access path", and the
// variable's name goes to the operator's log, not to the tenant.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStack, type GatewayStack, type TestProject } from "../harness/gateway-stack";

/** Providers this data plane has (a base URL) without their key: never called, only named by catalogue paths. */
const UNREACHED = "http://127.0.0.1:9/v1";

describe("details kept from anonymous callers and tenants", () => {
  let stack: GatewayStack;
  let project: TestProject;

  beforeAll(async () => {
    stack = await startStack({
      backend: "postgresql",
      mockAsProviders: ["anthropic"],
      dataPlaneEnv: { GOOGLE_BASE_URL: UNREACHED, OPENROUTER_BASE_URL: UNREACHED },
    });
    project = await stack.createProject({ balanceUsd: "1.00" });
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it("answers the public /health of both planes with the status alone", async () => {
    const dataPlane = await fetch(`${stack.url}/health`);
    expect(dataPlane.status).toBe(200);
    expect(await dataPlane.json()).toEqual({ status: "ok" });
    const controlPlane = await fetch(`${stack.adminUrl}/health`);
    expect(controlPlane.status).toBe(200);
    expect(await controlPlane.json()).toEqual({ status: "ok" });
  });

  it("shows the data plane's details on its metrics port", async () => {
    const health = await fetch(`${stack.metricsUrl}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({
      status: "ok",
      detail: {
        control_plane: "connected",
        control_plane_calls: "in_time",
        catalogue_revision: expect.any(String),
        rate_limit: expect.any(String),
        circuits: [],
      },
    });
  });

  it("tells a tenant a model has no configured access path, and names the missing variables in the log only", async () => {
    const response = await stack.post("/v1/chat/completions", project.key, {
      model: "google/gemini-2.5-flash",
      messages: [{ role: "user", content: "hello" }],
    });
    const text = await response.text();
    expect(response.status).toBe(400);
    expect(JSON.parse(text)).toMatchObject({
      error: { code: "model_unknown", message: "Model google/gemini-2.5-flash: this model has no configured access path." },
    });
    expect(text).not.toMatch(/_API_KEY/);
    const log = stack.dataPlanes[0]!.output();
    expect(log).toContain("catalogue paths name credentials not set on this data plane");
    expect(log).toMatch(/"unset_credentials":\["GOOGLE_API_KEY","OPENROUTER_API_KEY"\]/);
  });

  it("keeps the variable out of a routing trace a tenant asked for", async () => {
    const response = await stack.post("/v1/chat/completions", project.key, {
      model: "auto",
      service: { route: ["google/gemini-2.5-flash", "anthropic/claude-sonnet-4"] },
      messages: [{ role: "user", content: "hello" }],
    });
    const text = await response.text();
    expect(response.status, text).toBe(200);
    const reason = JSON.stringify((JSON.parse(text) as { service: { reason: unknown } }).service.reason);
    expect(reason).toContain("this model has no configured access path"); // gemini, excluded
    expect(reason).toContain("skipped: access path not configured"); // claude's OpenRouter path
    expect(reason).not.toMatch(/_API_KEY/);
  });
});
