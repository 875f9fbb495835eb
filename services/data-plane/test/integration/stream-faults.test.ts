// Upstream faults after the first byte of a stream: the stream ends with one
// OpenAI-shaped error event and no [DONE] (never a clean-looking end), billed
// once for what was delivered; a stalled upstream is cut at the idle limit.
// Faults are scripted on the mock provider.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sseData } from "../support/sse-data";
import { marker, startStack, type GatewayStack, type TestProject } from "../harness/gateway-stack";


describe("stream faults after the first byte", () => {
  let stack: GatewayStack;
  let project: TestProject;

  beforeAll(async () => {
    stack = await startStack({ backend: "pglite", dataPlaneEnv: { STREAM_IDLE_TIMEOUT_MS: "1000" } });
    project = await stack.createProject({ balanceUsd: "1.00" });
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it.each([
    ["the upstream connection resets mid-stream", "reset-mid-stream"],
    ["the upstream stalls past the idle limit", "stall-mid-stream"],
    ["the upstream sends an error event mid-stream", "error-event-mid-stream"],
  ])("%s: content, then one error event, no [DONE], billed once", async (_case, fault) => {
    const tag = marker();
    await stack.mockScript({ match: tag, fault, chunkDelayMs: 20 });
    const started = Date.now();
    const response = await stack.post("/v1/chat/completions", project.key, { model: "auto", stream: true, messages: [{ role: "user", content: tag }] });
    expect(response.status).toBe(200);
    const events = sseData(await response.text());
    const elapsed = Date.now() - started;

    expect(events).not.toContain("[DONE]");
    const last = JSON.parse(events.at(-1)!) as { error?: { type: string; code: number; message: string } };
    expect(last.error).toEqual({ type: "upstream_error", code: 502, message: expect.any(String) });
    const content = events.slice(0, -1).map((data) => JSON.parse(data) as { choices: { delta?: { content?: string } }[]; usage?: { cost: number } });
    expect(content.some((chunk) => (chunk.choices[0]?.delta?.content ?? "").length > 0)).toBe(true);
    const usage = content.at(-1)!.usage!; // the usage chunk before the error event: what was billed
    expect(usage.cost).toBeGreaterThan(0);
    if (fault === "stall-mid-stream") expect(elapsed).toBeLessThan(5_000); // cut near the 1 s idle limit, not left hanging

    const debits = (await stack.ledger(project.projectId)).filter((entry) => entry.request_id === response.headers.get("x-request-id"));
    expect(debits.map((entry) => -BigInt(entry.amount.nano))).toEqual([BigInt(Math.round(usage.cost * 1e9))]);
    expect((await stack.balance(project.projectId)).held.nano).toBe("0");
  });
});
