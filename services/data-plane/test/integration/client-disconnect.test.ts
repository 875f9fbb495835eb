// Client disconnects: before the first chunk, mid-stream, and just before the
// usage chunk (and a non-streamed request abandoned while waiting). Each ends
// in exactly one ledger entry: the provider's usage when it arrives within the
// short drain after the disconnect, otherwise what was produced (the prompt,
// plus the delivered text) - never $0 once the provider had the request, and
// the hold never left behind.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { marker, startStack, type GatewayStack, type TestProject } from "../harness/gateway-stack";

// The forwarded body (~130 bytes, so <= ~35 estimated tokens) at $0.40/M input: under 20,000 nano-USD.
// The whole recorded answer would cost 53,600, so billing it instead would fail these bounds.
const PROMPT_ONLY_MAX = 20_000n;

describe("client disconnects are billed for what was produced, once", () => {
  let stack: GatewayStack;

  beforeAll(async () => {
    stack = await startStack({ backend: "postgresql", dataPlaneEnv: { CLIENT_DISCONNECT_DRAIN_MS: "800" } });
  });

  afterAll(async () => {
    await stack?.stop();
  });

  async function settledOnce(project: TestProject): Promise<bigint> {
    // The settle lands right after the drain; wait for it.
    for (let attempt = 0; attempt < 50; attempt++) {
      const debits = (await stack.ledger(project.projectId)).filter((entry) => entry.kind === "debit");
      const held = (await stack.balance(project.projectId)).held.nano;
      if (debits.length > 0 && held === "0") {
        await new Promise((resolve) => setTimeout(resolve, 300));
        const again = (await stack.ledger(project.projectId)).filter((entry) => entry.kind === "debit");
        expect(again).toHaveLength(1);
        return -BigInt(again[0]!.amount.nano);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error("no settle reached the ledger");
  }

  /** Starts a stream and returns a reader over its SSE data lines plus the abort switch. */
  async function openStream(project: TestProject, tag: string, controller: AbortController) {
    const response = await fetch(`${stack.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${project.key}` },
      body: JSON.stringify({ model: "openai/gpt-4.1-mini", stream: true, messages: [{ role: "user", content: tag }] }),
      signal: controller.signal,
    });
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    return {
      response,
      async nextData(): Promise<string> {
        for (;;) {
          const end = buffer.indexOf("\n\n");
          if (end !== -1) {
            const event = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            if (event.startsWith("data: ")) return event.slice(6);
            continue;
          }
          const { value, done } = await reader.read();
          if (done) throw new Error("stream ended");
          buffer += decoder.decode(value, { stream: true });
        }
      },
    };
  }

  it("before the first chunk: the prompt is billed, once", async () => {
    const project = await stack.createProject({ balanceUsd: "1.00" });
    const tag = marker();
    await stack.mockScript({ match: tag, latencyMs: 3_000 });
    const controller = new AbortController();
    const pending = fetch(`${stack.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${project.key}` },
      body: JSON.stringify({ model: "openai/gpt-4.1-mini", stream: true, messages: [{ role: "user", content: tag }] }),
      signal: controller.signal,
    }).catch(() => undefined);
    await expect.poll(() => stack.mockRequestsWith(tag), { timeout: 2_500 }).toHaveLength(1); // the upstream has it, and is slow to answer
    controller.abort();
    await pending;
    const debited = await settledOnce(project);
    expect(debited).toBeGreaterThan(0n);
    expect(debited).toBeLessThan(PROMPT_ONLY_MAX);
  });

  it("mid-stream: the prompt and the delivered text are billed, once, and the upstream is stopped", async () => {
    const project = await stack.createProject({ balanceUsd: "1.00" });
    const tag = marker();
    await stack.mockScript({ match: tag, chunkDelayMs: 300 }); // ~40 events: the usage chunk is > 10 s away
    const controller = new AbortController();
    const stream = await openStream(project, tag, controller);
    const firstChunks = [await stream.nextData(), await stream.nextData(), await stream.nextData()];
    expect(firstChunks.every((data) => data.startsWith("{"))).toBe(true);
    controller.abort();
    const debited = await settledOnce(project);
    // The prompt plus a few delivered words at $0.40/$1.60 per M: far less than the whole answer (53,600).
    expect(debited).toBeGreaterThan(0n);
    expect(debited).toBeLessThan(PROMPT_ONLY_MAX + 10_000n);
    // The upstream was stopped within the drain: what the mock sent does not grow any more.
    const sentNow = (await stack.mockRequestsWith(tag))[0]!.responseText!.length;
    await new Promise((resolve) => setTimeout(resolve, 1_200)); // four more events' time at 300 ms each
    const sentLater = (await stack.mockRequestsWith(tag))[0]!.responseText!;
    expect(sentLater.length).toBe(sentNow);
    expect(sentLater.includes("[DONE]")).toBe(false);
  });

  it("just before the usage chunk: the provider's usage, arriving in the drain, is billed exactly", async () => {
    const project = await stack.createProject({ balanceUsd: "1.00" });
    const tag = marker();
    await stack.mockScript({ match: tag, chunkDelayMs: 40 });
    const controller = new AbortController();
    const stream = await openStream(project, tag, controller);
    for (;;) {
      const data = await stream.nextData();
      if (data.includes('"finish_reason":"stop"')) break; // the usage chunk comes next
    }
    controller.abort();
    expect(await settledOnce(project)).toBe(53_600n); // 14 input at $0.40/M + 30 output at $1.60/M, as the provider reported
  });

  it("a non-streamed request abandoned while waiting: the prompt is billed, once", async () => {
    const project = await stack.createProject({ balanceUsd: "1.00" });
    const tag = marker();
    await stack.mockScript({ match: tag, latencyMs: 3_000 });
    const controller = new AbortController();
    const abandoned = fetch(`${stack.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${project.key}` },
      body: JSON.stringify({ model: "auto", messages: [{ role: "user", content: tag }] }),
      signal: controller.signal,
    }).catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 400));
    controller.abort();
    await abandoned;
    const debited = await settledOnce(project);
    expect(debited).toBeGreaterThan(0n);
    expect(debited).toBeLessThan(23_600n); // less than the whole answer (19 in, 10 out) would have cost
  });
});

describe("a data plane stopped mid-stream", () => {
  let stack: GatewayStack;

  beforeAll(async () => {
    stack = await startStack({ backend: "postgresql", dataPlaneEnv: { DRAIN_TIMEOUT_MS: "500", CLIENT_DISCONNECT_DRAIN_MS: "800" } });
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it("settles the cut stream for what it delivered before it exits", async () => {
    const project = await stack.createProject({ balanceUsd: "1.00" });
    const tag = marker();
    await stack.mockScript({ match: tag, chunkDelayMs: 300 });
    const response = await stack.post("/v1/chat/completions", project.key, {
      model: "openai/gpt-4.1-mini",
      stream: true,
      messages: [{ role: "user", content: tag }],
    });
    const reader = response.body!.getReader();
    await reader.read(); // the stream is flowing
    const exitCode = await stack.dataPlanes[0]!.stop("SIGTERM", 15_000);
    expect(exitCode).toBe(0);
    await reader.cancel().catch(() => {});
    const debits = (await stack.ledger(project.projectId)).filter((entry) => entry.kind === "debit");
    expect(debits).toHaveLength(1);
    expect(-BigInt(debits[0]!.amount.nano)).toBeGreaterThan(0n);
    expect((await stack.balance(project.projectId)).held.nano).toBe("0");
  });
});
