// The fuzz corpus (issue 19, "done means"): at least 3,000 seeded hostile requests over every public
// route of the data plane and every admin route of the control plane, on a real stack (PostgreSQL,
// Redis, the mock provider as a healthy upstream). No answer may be a 5xx, none may fail to arrive,
// and every error answer must be in the documented shape (docs/errors.md). Both planes stay up.
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorShapeProblem } from "../support/error-shape";
import { ADMIN_ROUTE_NAMES, buildCorpus, type FuzzRequest } from "../support/fuzz-corpus";
import { rawRequest } from "../support/raw-http";
import { startStack, type GatewayStack } from "../harness/gateway-stack";

const SEED = 19;
const CONCURRENCY = 8;
/** Every public route of the data plane (build-app.ts and routes/), as the corpus names them. */
const DATA_ROUTES = [
  "POST /v1/chat/completions",
  "POST /v1/responses",
  "POST /v1/messages",
  "POST /v1/messages/count_tokens",
  "POST /v1/embeddings",
  "GET /v1/models",
  "GET /v1/models/{id}",
  "GET /v1/responses/{id}",
  "DELETE /v1/responses/{id}",
  "GET /v1/responses/{id}/input_items",
  "POST /v1/responses/{id}/cancel",
  "GET /health",
];
/** Model calls that are billed: each answered 200 must have exactly one debit, each refused none. */
const BILLED = new Set(["POST /v1/chat/completions", "POST /v1/responses", "POST /v1/messages", "POST /v1/embeddings"]);

/** Runs `work` over `items` with at most `limit` at a time. */
async function eachLimited<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

describe("the fuzz corpus", () => {
  let stack: GatewayStack;
  let key: string;
  let projectId: string;
  let target: { projectId: string; keyId: string };

  beforeAll(async () => {
    stack = await startStack({
      backend: "postgresql",
      dataPlaneEnv: { BODY_LIMIT_BYTES: String(1024 * 1024), DEFAULT_RPM_LIMIT: "1000000", REDIS_URL: "redis://127.0.0.1:6379" },
    });
    // One project for the data-plane requests, another for the admin routes to do their worst to.
    ({ key, projectId } = await stack.createProject({ balanceUsd: "1000.00" }));
    const admin = await stack.createProject({ balanceUsd: "1.00" });
    target = { projectId: admin.projectId, keyId: admin.keyId };
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it("gets no 5xx, no broken connection and no error body outside the shape, over every route", async () => {
    const corpus = buildCorpus(SEED, { data: 1_900, admin: 1_300 }, { key, adminToken: stack.adminToken, ...target });
    expect(corpus.length).toBeGreaterThanOrEqual(3_000);
    // Every route is in it, many times over.
    const perRoute = new Map<string, number>();
    for (const request of corpus) perRoute.set(request.route, (perRoute.get(request.route) ?? 0) + 1);
    for (const route of [...DATA_ROUTES, ...ADMIN_ROUTE_NAMES]) expect(perRoute.get(route) ?? 0, route).toBeGreaterThanOrEqual(10);
    // Kept-alive connections, as clients hold them: a request answered early must not break the next one.
    const agents = {
      data: new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY }),
      admin: new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY }),
    };
    const served = new Set<string>();
    // Failures counted by route and kind (what a reader needs first), with one example of each.
    const failures = new Map<string, { count: number; example: string }>();
    const fail = (request: FuzzRequest, kind: string, detail: string): void => {
      const key = `${request.route}: ${kind}`;
      const entry = failures.get(key) ?? { count: 0, example: `${request.label} ${request.path.slice(0, 80)} -> ${detail.slice(0, 160)}` };
      failures.set(key, { ...entry, count: entry.count + 1 });
    };

    await eachLimited(corpus, CONCURRENCY, async (request) => {
      const base = request.plane === "data" ? stack.url : stack.adminUrl;
      const answer = await rawRequest(base, request, agents[request.plane]);
      if (answer.networkError) return fail(request, "no answer", answer.networkError);
      if (answer.status >= 500) return fail(request, String(answer.status), answer.text);
      if (answer.status === 200 && BILLED.has(`${request.method} ${request.path}`)) served.add(String(answer.headers["x-request-id"]));
      if (answer.status < 400) return;
      const problem = errorShapeProblem(answer, request.dialect, request.method !== "HEAD");
      if (problem) fail(request, `${answer.status} ${problem.replace(/\d+ characters/, "N characters")}`, answer.text);
    });
    agents.data.destroy();
    agents.admin.destroy();

    // Both planes are still up and serving.
    expect((await fetch(`${stack.url}/health`)).status).toBe(200);
    expect((await fetch(`${stack.adminUrl}/health`)).status).toBe(200);
    expect(Object.fromEntries(failures)).toEqual({});
    // The corpus reached the upstream too: well-formed calls were served, each billed once, nothing else billed.
    expect(served.size).toBeGreaterThan(50);
    const debits = (await stack.ledger(projectId)).filter((entry) => entry.kind === "debit").map((entry) => entry.request_id);
    expect(debits.length).toBe(new Set(debits).size);
    expect(new Set(debits)).toEqual(served);
    // Budget leases go back once idle (2 s): then nothing is left held.
    await stack.waitHeldZero(projectId, 15_000);
  });
});
