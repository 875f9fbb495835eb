// The answers fastify and Node's HTTP server write before any route (issue 19, item 5): a request the
// parser refuses, headers over 16 KiB, a path parameter over its length limit, an unregistered method
// (TRACE), a request on a kept-alive connection once the replica closes. On both planes each is the
// error table's shape with x-should-retry, not `{"error":"Bad Request","message":"Client Error",...}`,
// fastify's own 503 body or nothing.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorShapeProblem } from "../support/error-shape";
import { type SocketAnswer, socketExchange } from "../support/raw-http";
import { marker, startStack, type GatewayStack, type TestProject } from "../harness/gateway-stack";

function expectTableError(answer: SocketAnswer | undefined, status: number, code: string): void {
  expect(answer?.status).toBe(status);
  const problem = errorShapeProblem({ status: answer!.status, headers: answer!.headers, text: answer!.body }, "openai");
  expect(problem, answer!.body).toBeUndefined();
  expect((JSON.parse(answer!.body) as { error: { code: string } }).error.code).toBe(code);
}

const request = (line: string, headers: Record<string, string> = {}) =>
  `${line}\r\nhost: localhost\r\n${Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join("")}\r\n`;

describe("framework error paths", () => {
  let stack: GatewayStack;
  let project: TestProject;
  const planes = () => [
    { name: "data plane", url: stack.url, longParam: `/v1/responses/${"r".repeat(101)}`, auth: `Bearer ${project.key}` },
    {
      name: "control plane",
      url: stack.adminUrl,
      longParam: `/admin/projects/${"p".repeat(101)}/balance`,
      auth: `Bearer ${stack.adminToken}`,
    },
  ];

  beforeAll(async () => {
    stack = await startStack({ backend: "postgresql", dataPlaneEnv: { SHUTDOWN_DELAY_MS: "0" } });
    project = await stack.createProject({ balanceUsd: "1.00" });
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it("answers a request the HTTP parser refuses with 400 invalid_request in the table's shape", async () => {
    for (const plane of planes()) {
      const [answer] = await socketExchange(plane.url, [{ text: "NOT-HTTP at all\r\n\r\n" }]);
      expectTableError(answer, 400, "invalid_request");
    }
  });

  it("answers headers over 16 KiB with 431 headers_too_large in the table's shape", async () => {
    for (const plane of planes()) {
      const [answer] = await socketExchange(plane.url, [{ text: request(`GET /health?${"q".repeat(20_000)} HTTP/1.1`) }]);
      expectTableError(answer, 431, "headers_too_large");
    }
  });

  it("answers a HEAD with headers over 16 KiB with 431 and no body (a client reads a body after it as another answer)", async () => {
    for (const plane of planes()) {
      const answers = await socketExchange(plane.url, [{ text: request("HEAD /health HTTP/1.1", { "x-fuzz": "h".repeat(20_000) }) }]);
      expect(answers).toHaveLength(1);
      expect(answers[0]).toMatchObject({ status: 431, body: "" });
      expect(answers[0]!.headers["x-should-retry"]).toBe("false");
    }
  });

  it("answers a path parameter over 100 characters with 414 uri_too_long, not the bad-URL message", async () => {
    for (const plane of planes()) {
      const [answer] = await socketExchange(plane.url, [
        { text: request(`GET ${plane.longParam} HTTP/1.1`, { authorization: plane.auth, connection: "close" }) },
      ]);
      expectTableError(answer, 414, "uri_too_long");
      expect(answer!.body).toContain("longer than 100 characters");
    }
  });

  it("answers TRACE /health with 404 not_found in the table's shape", async () => {
    for (const plane of planes()) {
      const [answer] = await socketExchange(plane.url, [{ text: request("TRACE /health HTTP/1.1", { connection: "close" }) }]);
      expectTableError(answer, 404, "not_found");
    }
  });

  // Last: it stops the data plane.
  it("refuses a request arriving on a kept-alive connection while the data plane drains with 503 shutting_down in the table's shape", async () => {
    const slow = marker();
    await stack.mockScript({ match: slow, latencyMs: 1_500 });
    const body = JSON.stringify({ model: "openai/gpt-4.1-mini", messages: [{ role: "user", content: slow }] });
    const headers = { authorization: `Bearer ${project.key}`, "content-type": "application/json" };
    let closing: (value: unknown) => void = () => {};
    const exchange = socketExchange(stack.url, [
      { text: `${request("POST /v1/chat/completions HTTP/1.1", { ...headers, "content-length": String(body.length) })}${body}` },
      // Sent once the server stopped accepting, while the first is still in flight (so the connection is not idle).
      {
        text: request("GET /v1/models HTTP/1.1", { authorization: `Bearer ${project.key}` }),
        after: new Promise((resolve) => (closing = resolve)),
      },
    ]);
    await expect.poll(() => stack.mockRequestsWith(slow)).toHaveLength(1);
    const exited = stack.dataPlanes[0]!.stop("SIGTERM", 20_000);
    await expect
      .poll(() =>
        fetch(`${stack.url}/health`).then(
          () => "accepting",
          () => "closed",
        ),
      )
      .toBe("closed");
    closing(undefined);
    const [inFlight, during] = await exchange;
    expect(inFlight?.status).toBe(200);
    expectTableError(during, 503, "shutting_down");
    expect(during!.headers["x-should-retry"]).toBe("true");
    expect(await exited).toBe(0);
  });
});
