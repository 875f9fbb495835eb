// The official SDKs with their default retries against the gateway's billing
// refusals: an empty balance (402) and a spent daily cap (429
// spend_cap_exceeded, Retry-After until midnight UTC). Both are billing
// signals, not outages (spec 7.3.5): `x-should-retry: false` makes the SDK
// raise at once instead of sleeping and retrying (an acceptance run saw the
// openai SDK hang ten minutes on a cap's 429, and it would have waited ~16 h).
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStack, type GatewayStack, type TestProject } from "../harness/gateway-stack";

describe("SDK retries on billing refusals", () => {
  let stack: GatewayStack;
  let broke: TestProject;
  let capped: TestProject;

  beforeAll(async () => {
    stack = await startStack({ backend: "pglite" });
    broke = await stack.createProject();
    // A cap of 1,000 nano-USD: no request's hold fits under it, so every call meets the cap.
    capped = await stack.createProject({ balanceUsd: "1.00", dailyCapUsd: "0.000001" });
  });

  afterAll(async () => {
    await stack?.stop();
  });

  /** A fetch that counts the calls the SDK makes; the SDK is left with its default retries. */
  function countingFetch() {
    const seen = { calls: 0 };
    const fetchCounted: typeof fetch = (input, init) => {
      seen.calls++;
      return fetch(input, init);
    };
    return { seen, fetchCounted };
  }

  const openaiCall = async (project: TestProject) => {
    const { seen, fetchCounted } = countingFetch();
    const client = new OpenAI({ apiKey: project.key, baseURL: `${stack.url}/v1`, fetch: fetchCounted });
    const error = await client.chat.completions
      .create({ model: "auto", messages: [{ role: "user", content: "hi" }] })
      .catch((caught: unknown) => caught);
    return { error: error as InstanceType<typeof OpenAI.APIError>, calls: seen.calls };
  };

  const anthropicCall = async (project: TestProject) => {
    const { seen, fetchCounted } = countingFetch();
    const client = new Anthropic({ apiKey: project.key, baseURL: stack.url, fetch: fetchCounted });
    const error = await client.messages
      .create({ model: "auto", max_tokens: 16, messages: [{ role: "user", content: "hi" }] })
      .catch((caught: unknown) => caught);
    return { error: error as InstanceType<typeof Anthropic.APIError>, calls: seen.calls };
  };

  it("openai: a spent daily cap raises RateLimitError at once, after one call, with Retry-After kept", async () => {
    const { error, calls } = await openaiCall(capped);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect(error.code).toBe("spend_cap_exceeded");
    expect(Number(error.headers?.get("retry-after"))).toBeGreaterThan(0);
    expect(error.headers?.get("x-should-retry")).toBe("false");
    expect(calls).toBe(1);
  });

  it("openai: an empty balance raises a 402 at once, after one call", async () => {
    const { error, calls } = await openaiCall(broke);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(error.status).toBe(402);
    expect(error.headers?.get("x-should-retry")).toBe("false");
    expect(calls).toBe(1);
  });

  it("anthropic: a spent daily cap raises RateLimitError at once, after one call", async () => {
    const { error, calls } = await anthropicCall(capped);
    expect(error).toBeInstanceOf(Anthropic.RateLimitError);
    expect(Number(error.headers?.get("retry-after"))).toBeGreaterThan(0);
    expect(calls).toBe(1);
  });

  it("anthropic: an empty balance raises a 402 at once, after one call", async () => {
    const { error, calls } = await anthropicCall(broke);
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect(error.status).toBe(402);
    expect(calls).toBe(1);
  });
});
