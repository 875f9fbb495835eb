// The end-to-end scenarios of the gateway, run once per database backend
// (gateway.postgresql.test.ts, gateway.pglite.test.ts): real processes, the
// mock provider as upstream, raw HTTP so every byte the client sees is checked.
import { readFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sseData } from "../support/sse-data";
import { costToNano, marker, startStack, type Backend, type GatewayStack, type TestProject } from "../harness/gateway-stack";
import { TEST_REDIS_URL } from "../../../../deploy/test/test-services";

interface ErrorBody {
  error: { type: string; code: string | number; message: string; param: string | null };
}

function expectErrorShape(body: unknown, type: string, code: string | number): void {
  // `param`: the field at fault where the gateway knows it, else null (docs/errors.md).
  const param = (body as ErrorBody).error?.param;
  expect(body).toEqual({ error: { type, code, message: expect.any(String), param: typeof param === "string" ? param : null } });
  expect((body as ErrorBody).error.message.length).toBeGreaterThan(10);
}

const weatherTool = (name: string) => ({
  type: "function",
  function: {
    name,
    description: "Get the weather",
    parameters: { type: "object", properties: { location: { type: "string" } }, required: ["location"] },
  },
});

/** Request shapes that make the mock answer with each recorded payload. */
const RECORDED_SHAPES: [string, Record<string, unknown>][] = [
  ["tools", { tools: [weatherTool("get_current_weather")], tool_choice: "auto", parallel_tool_calls: false }],
  ["parallel tools", { tools: [weatherTool("get_current_weather"), weatherTool("get_forecast")] }],
  [
    "json_schema",
    {
      response_format: {
        type: "json_schema",
        json_schema: { name: "answer", strict: true, schema: { type: "object", properties: { a: { type: "string" } } } },
      },
    },
  ],
  ["image input", { image: true }],
];

function messagesFor(tag: string, fields: Record<string, unknown>): unknown[] {
  if (!fields.image) return [{ role: "user", content: tag }];
  return [
    {
      role: "user",
      content: [
        { type: "text", text: `What is in this image? ${tag}` },
        { type: "image_url", image_url: { url: "https://example.com/cat.png" } },
      ],
    },
  ];
}

/** Sends one raw HTTP/1.1 request (e.g. with an absolute-form target) and returns the status code. */
async function rawStatus(baseUrl: string, requestLine: string, body = ""): Promise<number> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => {
      socket.write(
        `${requestLine}\r\nHost: ${hostname}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
    });
    let response = "";
    socket.on("data", (chunk) => (response += chunk.toString()));
    socket.on("end", () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(response)?.[1] ?? 0)));
    socket.on("error", reject);
  });
}

export function defineGatewayScenarios(backend: Backend): void {
  describe(`gateway end to end on ${backend}`, () => {
    let stack: GatewayStack;
    let project: TestProject;

    beforeAll(async () => {
      // PostgreSQL runs with the machine's Redis for the per-minute limit; PGlite, the embedded
      // default, with the in-process limiter. A 3 s window keeps the Retry-After test short.
      stack = await startStack({
        backend,
        dataPlaneEnv: {
          BODY_LIMIT_BYTES: "65536",
          RATE_LIMIT_WINDOW_MS: "3000",
          // Several scenarios fail the same path on purpose; circuits are exercised in fault-matrix.test.ts.
          CIRCUIT_FAILURE_THRESHOLD: "1000",
          ...(backend === "postgresql" ? { REDIS_URL: TEST_REDIS_URL } : {}),
        },
      });
      project = await stack.createProject({ balanceUsd: "5.00" });
    });

    afterAll(async () => {
      await stack?.stop();
    });

    it("answers /health on both planes without auth", async () => {
      const dataPlane = await fetch(`${stack.url}/health`);
      expect(dataPlane.status).toBe(200);
      expect(await dataPlane.json()).toMatchObject({ status: "ok" });
      const controlPlane = await fetch(`${stack.adminUrl}/health`);
      expect(controlPlane.status).toBe(200);
      expect(await controlPlane.json()).toEqual({ status: "ok" });
    });

    it("limits requests per minute per project: 429 with Retry-After, after which a retry succeeds", async () => {
      const limited = await stack.createProject({ balanceUsd: "1.00" });
      expect((await stack.admin("PATCH", `/admin/projects/${limited.projectId}/limits`, { rpm_limit: 2 })).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 300)); // the limit change is pushed to the data plane
      const body = { model: "auto", messages: [{ role: "user", content: "x" }] };
      const first = await stack.post("/v1/chat/completions", limited.key, body);
      expect(first.status).toBe(200);
      expect(first.headers.get("x-ratelimit-limit-requests")).toBe("2");
      expect(first.headers.get("x-ratelimit-remaining-requests")).toBe("1");
      expect(first.headers.get("x-ratelimit-reset-requests")).toMatch(/^[1-3]s$/);
      expect((await stack.post("/v1/chat/completions", limited.key, body)).status).toBe(200);
      const refused = await stack.post("/v1/chat/completions", limited.key, body);
      expect(refused.status).toBe(429);
      expectErrorShape(await refused.json(), "rate_limit_error", "rate_limit_exceeded");
      const retryAfter = Number(refused.headers.get("retry-after"));
      expect(Number.isInteger(retryAfter)).toBe(true);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(3);
      await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000));
      expect((await stack.post("/v1/chat/completions", limited.key, body)).status).toBe(200);

      const health = await stack.dataPlaneHealth<{ rate_limit: string }>();
      expect(health.detail.rate_limit).toBe(backend === "postgresql" ? "redis" : "local");
    });

    it.each([
      ["missing", undefined],
      ["malformed", "not-a-key"],
      ["unknown", "sk_nosuchproject_0123456789abcdefghijklmnopqrstuvwxyzABCDEFG"],
    ])("refuses a %s key with 401 invalid_api_key", async (_case, key) => {
      const response = await stack.post("/v1/chat/completions", key, { model: "auto", messages: [{ role: "user", content: "hi" }] });
      expect(response.status).toBe(401);
      expectErrorShape(await response.json(), "authentication_error", "invalid_api_key");
    });

    it("checks keys and the admin token for absolute-form request targets too", async () => {
      expect(await rawStatus(stack.url, "GET http://elsewhere/v1/models HTTP/1.1")).toBe(401);
      expect(
        await rawStatus(
          stack.url,
          "POST http://elsewhere/v1/chat/completions HTTP/1.1",
          JSON.stringify({ model: "auto", messages: [{ role: "user", content: "x" }] }),
        ),
      ).toBe(401);
      expect(await rawStatus(stack.adminUrl, "GET http://elsewhere/admin/projects HTTP/1.1")).toBe(401);
      expect(
        await rawStatus(
          stack.adminUrl,
          `POST http://elsewhere/admin/projects/${project.projectId}/topups HTTP/1.1`,
          JSON.stringify({ amount_usd: "1000000", idempotency_key: "sneaky" }),
        ),
      ).toBe(401);
      expect((await stack.balance(project.projectId)).balance.nano).toBe("5000000000");
    });

    it("refuses a revoked key on the data plane within a second, although it was cached", async () => {
      const fresh = await stack.admin<{ key: string; id: string }>("POST", `/admin/projects/${project.projectId}/keys`, {
        name: "to revoke",
      });
      const models = () => fetch(`${stack.url}/v1/models`, { headers: { authorization: `Bearer ${fresh.json.key}` } });
      expect((await models()).status).toBe(200); // now cached on the data plane
      const revokedAt = Date.now();
      expect((await stack.admin("POST", `/admin/keys/${fresh.json.id}/revoke`)).status).toBe(200);
      let status = 200;
      while (status === 200 && Date.now() - revokedAt < 5000) {
        status = (await models()).status;
        if (status === 200) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(status).toBe(401);
      expect(Date.now() - revokedAt).toBeLessThan(1000);
    });

    it("lists the aliases first, then the curated catalogue, with verified pricing", async () => {
      const response = await fetch(`${stack.url}/v1/models`, { headers: { authorization: `Bearer ${project.key}` } });
      expect(response.status).toBe(200);
      const list = (await response.json()) as { object: string; data: { id: string; object: string; service: Record<string, unknown> }[] };
      expect(list.object).toBe("list");
      expect(list.data.slice(0, 4).map((entry) => entry.id)).toEqual(["auto", "auto:economy", "auto:balanced", "auto:quality"]);
      for (const alias of list.data.slice(0, 4)) expect(alias.service).toEqual({ alias: true });
      const concrete = list.data.slice(4);
      expect(concrete.map((entry) => entry.id)).toContain("openai/gpt-4.1-mini");
      const mini = concrete.find((entry) => entry.id === "openai/gpt-4.1-mini")!;
      expect(mini).toMatchObject({
        object: "model",
        owned_by: "openai",
        service: { tiers: ["balanced"], pricing: { input: 0.4, output: 1.6 } },
      });
      for (const entry of concrete) expect(entry.service.alias).toBeUndefined();
    });

    it("appends the inventory with ?all=1: empty tiers and purposes, pricing only where verified", async () => {
      const inventory = JSON.parse(
        readFileSync(path.resolve(import.meta.dirname, "../../../control-plane/src/catalogue/inventory.json"), "utf8"),
      ) as {
        id: string;
        paths: { price?: { verified: boolean; input_per_m?: string } }[];
      }[];
      const list = async (query: string) =>
        (
          (await (await fetch(`${stack.url}/v1/models${query}`, { headers: { authorization: `Bearer ${project.key}` } })).json()) as {
            data: { id: string; service: { tiers?: string[]; purposes?: string[]; pricing?: { input: number } } }[];
          }
        ).data;
      const curated = await list("");
      const all = await list("?all=1");
      expect(all.slice(0, curated.length)).toEqual(curated);
      const appended = all.slice(curated.length);
      expect(appended.map((entry) => entry.id)).toEqual(inventory.map((entry) => entry.id));
      for (const [index, entry] of appended.entries()) {
        expect(entry.service.tiers).toEqual([]);
        expect(entry.service.purposes).toEqual([]);
        const verified = inventory[index]!.paths.find(
          (candidate) => candidate.price?.verified && candidate.price.input_per_m !== undefined,
        );
        expect(entry.service.pricing === undefined, entry.id).toBe(verified === undefined);
        if (verified) expect(entry.service.pricing!.input).toBe(Number(verified.price!.input_per_m));
      }
      expect(appended.filter((entry) => entry.service.pricing).length).toBeGreaterThan(100);
    });

    it("forwards a chat completion and returns the upstream body with usage.cost, debited exactly once", async () => {
      const tag = marker();
      const response = await stack.post("/v1/chat/completions", project.key, {
        model: "auto",
        messages: [{ role: "user", content: `Hello ${tag}` }],
        temperature: 0.2,
        not_an_openai_field: { nested: true },
        top_k: 5, // an OpenRouter extra: not for a direct OpenAI path
      });
      expect(response.status).toBe(200);
      expect(response.headers.get("x-service-model")).toBe("openai/gpt-4.1-mini");
      expect(response.headers.get("x-service-reason")).toBe("auto -> openai/gpt-4.1-mini via openai, 1 attempt");
      const body = (await response.json()) as { usage: { cost: number; prompt_tokens: number; completion_tokens: number } };

      const [seen] = await stack.mockRequestsWith(tag);
      expect(seen!.body).toEqual({ model: "gpt-4.1-mini", messages: [{ role: "user", content: `Hello ${tag}` }], temperature: 0.2 });
      expect(seen!.headers.authorization).toBe("Bearer upstream-secret-key");

      // Fidelity: exactly the upstream body, plus usage.cost.
      const { cost, ...usage } = body.usage;
      expect({ ...body, usage }).toEqual(seen!.responseBody);
      // 19 input tokens at $0.40/M + 10 output tokens at $1.60/M (the recorded usage).
      expect(costToNano(cost)).toBe(23_600n);

      const requestId = response.headers.get("x-request-id");
      const debits = (await stack.ledger(project.projectId)).filter((entry) => entry.request_id === requestId);
      expect(debits).toHaveLength(1);
      expect(BigInt(debits[0]!.amount.nano)).toBe(-23_600n);
      expect(debits[0]!.kind).toBe("debit");
    });

    it("adds service.reason when the request had a service block, and never forwards the block", async () => {
      const tag = marker();
      const response = await stack.post("/v1/chat/completions", project.key, {
        model: "auto",
        service: { tier: "economy", purpose: "chat" },
        messages: [{ role: "user", content: tag }],
      });
      expect(response.status).toBe(200);
      const body = (await response.json()) as { service: { reason: Record<string, unknown> } };
      expect(body.service.reason).toMatchObject({
        requested: "auto",
        resolved: "openai/gpt-4.1-nano",
        tier: "economy",
        purpose: "chat",
        path: "openai",
        attempts: [{ model: "openai/gpt-4.1-nano", path: "openai", outcome: "ok", ms: expect.any(Number) }],
      });
      const [seen] = await stack.mockRequestsWith(tag);
      expect(seen!.body.service).toBeUndefined();
      expect(seen!.body.model).toBe("gpt-4.1-nano");
    });

    it("explains its choice: candidates in order and exclusions with why", async () => {
      const tag = marker();
      const response = await stack.post("/v1/chat/completions", project.key, {
        model: "auto:quality",
        service: { purpose: "agent" },
        tools: [{ type: "function", function: { name: "lookup", parameters: { type: "object" } } }],
        messages: [{ role: "user", content: tag }],
      });
      expect(response.status).toBe(200);
      const body = (await response.json()) as { service: { reason: Record<string, unknown> } };
      // Claude Sonnet 4 is curated for quality/agent but only reachable through OpenRouter, which this stack does not configure.
      expect(body.service.reason).toMatchObject({
        requested: "auto:quality",
        resolved: "openai/gpt-4.1",
        tier: "quality",
        purpose: "agent",
        candidates: ["openai/gpt-4.1"],
        excluded: [{ model: "anthropic/claude-sonnet-4", why: "no reachable access path with a price" }],
        path: "openai",
      });
      expect(response.headers.get("x-service-reason")).toBe("auto:quality -> openai/gpt-4.1 via openai, 1 attempt");
    });

    it("streams a chat completion unchanged, ending with usage.cost equal to the debit, then [DONE]", async () => {
      const tag = marker();
      const response = await stack.post("/v1/chat/completions", project.key, {
        model: "gpt-4.1-mini", // a bare name
        stream: true,
        messages: [{ role: "user", content: tag }],
      });
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
      expect(response.headers.get("x-service-model")).toBe("openai/gpt-4.1-mini");
      expect(response.headers.get("x-service-reason")).toBe("gpt-4.1-mini -> openai/gpt-4.1-mini via openai, 1 attempt");
      const received = sseData(await response.text());

      const [seen] = await stack.mockRequestsWith(tag);
      // The client did not ask for usage; the gateway always does, to bill exactly.
      expect(seen!.body.stream_options).toEqual({ include_usage: true });
      const sent = sseData(seen!.responseText!);
      expect(received.at(-1)).toBe("[DONE]");
      expect(received).toHaveLength(sent.length);
      // Every chunk before the usage chunk is relayed byte for byte.
      expect(received.slice(0, -2)).toEqual(sent.slice(0, -2));
      const usageChunk = JSON.parse(received.at(-2)!) as { choices: unknown[]; usage: { cost: number } };
      const { cost, ...usage } = usageChunk.usage;
      expect({ ...usageChunk, usage }).toEqual(JSON.parse(sent.at(-2)!));
      expect(usageChunk.choices).toEqual([]);

      const requestId = response.headers.get("x-request-id");
      const debits = (await stack.ledger(project.projectId)).filter((entry) => entry.request_id === requestId);
      expect(debits).toHaveLength(1);
      expect(BigInt(debits[0]!.amount.nano)).toBe(-costToNano(cost));
      // 14 input at $0.40/M + 30 output at $1.60/M (the recorded usage chunk).
      expect(costToNano(cost)).toBe(53_600n);
    });

    it.each(RECORDED_SHAPES)("relays a %s answer unchanged but for usage.cost", async (_shape, fields) => {
      const tag = marker();
      const { image: _image, ...request } = fields;
      const response = await stack.post("/v1/chat/completions", project.key, {
        model: "openai/gpt-4.1",
        messages: messagesFor(tag, fields),
        ...request,
      });
      expect(response.status).toBe(200);
      const body = (await response.json()) as { usage: { cost: number } };
      const [seen] = await stack.mockRequestsWith(tag);
      expect(seen!.body).toEqual({ model: "gpt-4.1", messages: messagesFor(tag, fields), ...request });
      const { cost, ...usage } = body.usage;
      expect({ ...body, usage }).toEqual(seen!.responseBody);
      const debits = (await stack.ledger(project.projectId)).filter((entry) => entry.request_id === response.headers.get("x-request-id"));
      expect(debits.map((entry) => BigInt(entry.amount.nano))).toEqual([-costToNano(cost)]);
    });

    it.each(RECORDED_SHAPES.filter(([shape]) => shape !== "image input"))(
      "relays a streamed %s answer chunk for chunk",
      async (_shape, fields) => {
        const tag = marker();
        const response = await stack.post("/v1/chat/completions", project.key, {
          model: "openai/gpt-4.1",
          stream: true,
          stream_options: { include_usage: true },
          messages: messagesFor(tag, fields),
          ...fields,
        });
        expect(response.status).toBe(200);
        const received = sseData(await response.text());
        const [seen] = await stack.mockRequestsWith(tag);
        const sent = sseData(seen!.responseText!);
        expect(received.slice(0, -2)).toEqual(sent.slice(0, -2));
        expect(received.at(-1)).toBe("[DONE]");
        const final = JSON.parse(received.at(-2)!) as { usage: { cost: number } };
        const { cost, ...usage } = final.usage;
        expect({ ...final, usage }).toEqual(JSON.parse(sent.at(-2)!));
        const debits = (await stack.ledger(project.projectId)).filter((entry) => entry.request_id === response.headers.get("x-request-id"));
        expect(debits.map((entry) => BigInt(entry.amount.nano))).toEqual([-costToNano(cost)]);
      },
    );

    it("serves embeddings with auto mapped to the default embeddings model", async () => {
      const tag = marker();
      const response = await stack.post("/v1/embeddings", project.key, {
        model: "auto",
        input: [`a ${tag}`, "b"],
        encoding_format: "float",
        junk: 1,
      });
      expect(response.status).toBe(200);
      const body = (await response.json()) as { data: unknown[]; usage: { cost: number } };
      const [seen] = await stack.mockRequestsWith(tag);
      expect(seen!.path).toBe("/v1/embeddings");
      expect(seen!.body).toEqual({ model: "text-embedding-3-small", input: [`a ${tag}`, "b"], encoding_format: "float" });
      const { cost, ...usage } = body.usage;
      expect({ ...body, usage }).toEqual(seen!.responseBody);
      const tokens = (seen!.responseBody!.usage as { prompt_tokens: number }).prompt_tokens;
      expect(costToNano(cost)).toBe(BigInt(tokens) * 20n); // $0.02/M = 20 nano-USD per token
      const debits = (await stack.ledger(project.projectId)).filter((entry) => entry.request_id === response.headers.get("x-request-id"));
      expect(debits.map((entry) => BigInt(entry.amount.nano))).toEqual([-costToNano(cost)]);
    });

    it.each([
      ["an unknown bare name", { model: "no-such-model" }, "model_unknown"],
      ["an unknown tier", { model: "auto:premium" }, "model_unknown"],
      ["an unpriceable concrete id", { model: "somevendor/some-model" }, "model_unknown"],
      ["no model", {}, "model_required"],
      ["a wrong service block", { model: "auto", service: { tier: 3 } }, "invalid_service"],
      ["no messages", { model: "auto", messages: [] }, "invalid_body"],
    ])("answers %s with 400 and never calls upstream", async (_case, fields, code) => {
      const tag = marker();
      const response = await stack.post("/v1/chat/completions", project.key, { messages: [{ role: "user", content: tag }], ...fields });
      expect(response.status).toBe(400);
      expectErrorShape(await response.json(), "invalid_request_error", code);
      expect(await stack.mockRequestsWith(tag)).toHaveLength(0);
    });

    it.each([
      [
        "openai.error.400.context_length_exceeded",
        400,
        "upstream_rejected",
        "the request exceeds the model's context window",
        "maximum context length",
      ],
      ["openai.error.404.model_not_found", 404, "upstream_rejected", "the model was not found at the provider", "does not exist"],
    ])("names the category of %s in its own words", async (fixture, status, type, category, providerText) => {
      const tag = marker();
      await stack.mockScript({ match: tag, errorFixture: fixture });
      const response = await stack.post("/v1/chat/completions", project.key, { model: "auto", messages: [{ role: "user", content: tag }] });
      expect(response.status).toBe(status);
      const text = await response.text();
      expectErrorShape(JSON.parse(text), type, status);
      expect(JSON.parse(text).error.message).toContain(category);
      expect(text).not.toContain(providerText);
    });

    it("passes an upstream 429's Retry-After on as whole seconds, and nothing else of it", async () => {
      const tag = marker();
      // Every attempt is refused (times: 0 = unlimited), so the caller gets the upstream's answer.
      await stack.mockScript({ match: tag, times: 0, status: 429, headers: { "retry-after": "7" } });
      const response = await stack.post("/v1/chat/completions", project.key, { model: "auto", messages: [{ role: "user", content: tag }] });
      expect(response.status).toBe(429);
      expect(response.headers.get("retry-after")).toBe("7");
      // 7 s is beyond the retry wait budget: no retry on that path, and no other path to try.
      expect(await stack.mockRequestsWith(tag)).toHaveLength(1);
      const canary = marker();
      await stack.mockScript({ match: canary, times: 0, status: 429, headers: { "retry-after": "canary-7f3a" } });
      const odd = await stack.post("/v1/chat/completions", project.key, { model: "auto", messages: [{ role: "user", content: canary }] });
      expect(odd.status).toBe(429);
      expect(odd.headers.get("retry-after")).toBeNull();
      expect(await stack.mockRequestsWith(canary)).toHaveLength(2);
    });

    it("releases the hold of a stream whose upstream fails before the first byte, and answers in the OpenAI shape", async () => {
      const tag = marker();
      await stack.mockScript({ match: tag, times: 0, status: 503 });
      const before = await stack.balance(project.projectId);
      const response = await stack.post("/v1/chat/completions", project.key, {
        model: "auto",
        stream: true,
        messages: [{ role: "user", content: tag }],
      });
      expect(response.status).toBe(503);
      expect(response.headers.get("content-type")).toMatch(/^application\/json/);
      expectErrorShape(await response.json(), "upstream_error", 503);
      const after = await stack.balance(project.projectId);
      expect(after.balance.nano).toBe(before.balance.nano);
      expect(after.held.nano).toBe("0");
      expect(
        (await stack.ledger(project.projectId)).filter((entry) => entry.request_id === response.headers.get("x-request-id")),
      ).toHaveLength(0);
    });

    it("answers a body that is not JSON with 400 invalid_body", async () => {
      const response = await stack.post("/v1/chat/completions", project.key, "{not json");
      expect(response.status).toBe(400);
      expectErrorShape(await response.json(), "invalid_request_error", "invalid_body");
    });

    it("answers a body over the limit with 413 body_too_large", async () => {
      const response = await stack.post("/v1/chat/completions", project.key, {
        model: "auto",
        messages: [{ role: "user", content: "x".repeat(70_000) }],
      });
      expect(response.status).toBe(413);
      expectErrorShape(await response.json(), "invalid_request_error", "body_too_large");
    });

    it("answers a path with invalid percent-encoding with 400 in the OpenAI shape, not fastify's", async () => {
      const response = await fetch(`${stack.url}/v1/models/%E0%A4%A`, { headers: { authorization: `Bearer ${project.key}` } });
      expect(response.status).toBe(400);
      expectErrorShape(await response.json(), "invalid_request_error", "invalid_request");
    });

    it("answers an unknown route with 404 in the OpenAI shape", async () => {
      const response = await stack.post("/v1/completions", project.key, { model: "auto" });
      expect(response.status).toBe(404);
      expectErrorShape(await response.json(), "invalid_request_error", "not_found");
    });

    it("refuses with 402 insufficient_credits before any upstream call", async () => {
      const broke = await stack.createProject();
      const tag = marker();
      const response = await stack.post("/v1/chat/completions", broke.key, { model: "auto", messages: [{ role: "user", content: tag }] });
      expect(response.status).toBe(402);
      expectErrorShape(await response.json(), "billing_error", "insufficient_credits");
      expect(await stack.mockRequestsWith(tag)).toHaveLength(0);
      expect(await stack.ledger(broke.projectId)).toHaveLength(0);
    });

    it("caps max_tokens to what a small balance covers instead of refusing, and says so", async () => {
      const small = await stack.createProject({ balanceUsd: "0.01" }); // gpt-4.1's worst case (32,768 output tokens) is ~$0.26
      const tag = marker();
      const response = await stack.post("/v1/chat/completions", small.key, {
        model: "openai/gpt-4.1",
        service: {},
        messages: [{ role: "user", content: tag }],
      });
      expect(response.status).toBe(200);
      const [seen] = await stack.mockRequestsWith(tag);
      const capped = seen!.body.max_tokens as number;
      expect(capped).toBeGreaterThan(1_000); // $0.01 at $8/M output, less the prompt: about 1,240 tokens
      expect(capped).toBeLessThan(1_250);
      expect(response.headers.get("x-service-reason")).toContain(`max_tokens capped to ${capped}`);
      const body = (await response.json()) as { service: { reason: { max_tokens_capped: number } }; usage: { cost: number } };
      expect(body.service.reason.max_tokens_capped).toBe(capped);
      const balance = await stack.balance(small.projectId);
      expect(BigInt(balance.balance.nano)).toBe(10_000_000n - costToNano(body.usage.cost));
      expect(balance.held.nano).toBe("0");

      // A caller's own max_tokens is never lowered: the worst case does not fit, so 402.
      const explicit = await stack.post("/v1/chat/completions", small.key, {
        model: "openai/gpt-4.1",
        max_tokens: 30_000,
        messages: [{ role: "user", content: "x" }],
      });
      expect(explicit.status).toBe(402);
      // Not even a minimal answer fits: 402.
      const broke = await stack.createProject({ balanceUsd: "0.0000001" });
      expect(
        (await stack.post("/v1/chat/completions", broke.key, { model: "openai/gpt-4.1", messages: [{ role: "user", content: "x" }] }))
          .status,
      ).toBe(402);
    });

    it("refuses with 429 spend_cap_exceeded and Retry-After to the next midnight UTC", async () => {
      const capped = await stack.createProject({ balanceUsd: "1.00", dailyCapUsd: "0.000001" });
      const tag = marker();
      const response = await stack.post("/v1/chat/completions", capped.key, {
        model: "auto",
        messages: [{ role: "user", content: tag }],
        max_tokens: 50,
      });
      expect(response.status).toBe(429);
      expectErrorShape(await response.json(), "billing_error", "spend_cap_exceeded");
      const now = new Date();
      const toMidnight = (Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1) - now.getTime()) / 1000;
      expect(Math.abs(Number(response.headers.get("retry-after")) - toMidnight)).toBeLessThanOrEqual(3);
      expect(await stack.mockRequestsWith(tag)).toHaveLength(0);
    });

    it.each([
      [500, "upstream_error"],
      [503, "upstream_error"],
      [429, "rate_limit_error"],
      [400, "upstream_rejected"],
    ])("normalizes an upstream %i, relays none of its text, and debits nothing", async (status, type) => {
      const tag = marker();
      await stack.mockScript({ match: tag, times: 0, status, headers: { "x-upstream-secret": "canary-HEADER-7f3a" } });
      const before = await stack.balance(project.projectId);
      const response = await stack.post("/v1/chat/completions", project.key, { model: "auto", messages: [{ role: "user", content: tag }] });
      expect(response.status).toBe(status);
      const text = await response.text();
      expectErrorShape(JSON.parse(text), type, status);
      const seenAll = await stack.mockRequestsWith(tag);
      // A transient failure is retried once on the one path there is; a 4xx refusal is not.
      expect(seenAll).toHaveLength([429, 500, 502, 503, 504].includes(status) ? 2 : 1);
      const [seen] = seenAll;
      const upstreamMessage = ((seen!.responseBody as ErrorBody | undefined)?.error.message ?? "").slice(0, 20);
      expect(upstreamMessage.length).toBeGreaterThan(0);
      expect(text).not.toContain(upstreamMessage);
      expect(text).not.toContain("canary-HEADER-7f3a");
      expect(response.headers.get("x-upstream-secret")).toBeNull();
      const after = await stack.balance(project.projectId);
      expect(after.balance.nano).toBe(before.balance.nano);
      expect(after.held.nano).toBe("0");
    });
  });
}
