// A flood of made-up keys from one address (issue 33, item 3): each one cost a ValidateKey call and a
// database read before. Now an address may have AUTH_FAILURES_PER_MINUTE keys (60) found not valid,
// refilled one a second; past them it gets 429 auth_failures_exceeded in its route's dialect without
// the control plane being asked, and a valid key it holds is served from the cache as before.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorShapeProblem } from "../support/error-shape";
import { readMetric } from "../support/metrics";
import { startStack, type GatewayStack, type TestProject } from "../harness/gateway-stack";

const FLOOD = 10_000;
const CONCURRENCY = 50;
const PER_MINUTE = 60;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
/** A key never issued, in the issued format (so it is sent to the control plane, not refused by its shape). */
const madeUpKey = (index: number) => `sk_nobody_${String(index).padStart(43, "0")}`;

describe("a flood of made-up keys from one address", () => {
  let stack: GatewayStack;
  let project: TestProject;

  beforeAll(async () => {
    // Two data planes: the flood goes to the first; the second, idle, is the control its latency is measured against.
    stack = await startStack({ backend: "postgresql", dataPlanes: 2 });
    project = await stack.createProject({ balanceUsd: "1.00" });
  });

  afterAll(async () => {
    await stack?.stop();
  });

  const validateKeyCalls = () => readMetric(stack.metricsUrl, "gateway_control_plane_call_seconds_count", { method: "ValidateKey" });

  /** A valid key's request to one data plane: its latency in ms and its status. */
  const keyed = async (dataPlane: number) => {
    const started = performance.now();
    const response = await fetch(`${stack.dataPlanes[dataPlane]!.ready.url}/v1/models/auto`, {
      headers: { authorization: `Bearer ${project.key}` },
    });
    await response.arrayBuffer();
    return { ms: performance.now() - started, status: response.status };
  };

  it("costs the control plane a bounded number of calls and leaves a valid key's latency unchanged", { timeout: 180_000 }, async () => {
    await Promise.all([keyed(0), keyed(1)]); // the valid key is cached on both
    const callsBefore = await validateKeyCalls();
    const started = performance.now();
    const statuses = new Map<number, number>();
    let sent = 0;
    let flooding = true;
    const sender = async () => {
      while (sent < FLOOD) {
        const response = await fetch(`${stack.url}/v1/chat/completions`, {
          method: "POST",
          headers: { authorization: `Bearer ${madeUpKey(sent++)}`, "content-type": "application/json" },
          body: JSON.stringify({ model: "auto", messages: [{ role: "user", content: "hello" }] }),
        });
        await response.arrayBuffer();
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      }
    };
    const flood = Promise.all(Array.from({ length: CONCURRENCY }, sender)).finally(() => {
      flooding = false;
    });
    // The valid key on both data planes at one moment, while the flood lasts: the machine's own load delays both alike.
    const pairs: { flooded: number; idle: number }[] = [];
    while (flooding) {
      const [flooded, idle] = await Promise.all([keyed(0), keyed(1)]);
      expect([flooded.status, idle.status]).toEqual([200, 200]);
      pairs.push({ flooded: flooded.ms, idle: idle.ms });
    }
    await flood;
    const seconds = (performance.now() - started) / 1000;
    const calls = (await validateKeyCalls()) - callsBefore;

    // The bucket, its refill over the flood, and the valid key's refresh once its cache entry is 30 s old.
    expect(calls, `${calls} ValidateKey calls in ${seconds.toFixed(1)} s`).toBeLessThanOrEqual(PER_MINUTE + Math.ceil(seconds) + 1);
    expect(Object.fromEntries(statuses)).toEqual({ 401: expect.any(Number), 429: expect.any(Number) });
    expect(statuses.get(401)! + statuses.get(429)!).toBe(FLOOD);
    expect(statuses.get(401)).toBeLessThanOrEqual(PER_MINUTE + Math.ceil(seconds));
    const delay = median(pairs.map((pair) => pair.flooded - pair.idle));
    const shown = pairs.map((pair) => `${pair.flooded.toFixed(0)}/${pair.idle.toFixed(0)}`).join(" ");
    expect(delay, `valid key ms on the flooded / the idle data plane: ${shown}`).toBeLessThan(50);

    expect(await readMetric(stack.metricsUrl, "gateway_auth_failures_total", { outcome: "throttled" })).toBe(statuses.get(429));
  });

  it("answers the throttled address in its route's dialect, with Retry-After", async () => {
    let next = FLOOD;
    for (const [route, dialect] of [
      ["/v1/chat/completions", "openai"],
      ["/v1/messages", "anthropic"],
    ] as const) {
      // The budget refills one a second: a key or two may still be asked (and be 401) before the 429.
      let answer = { status: 0, headers: {} as Record<string, string>, text: "" };
      for (let attempt = 0; attempt < PER_MINUTE + 10 && answer.status !== 429; attempt++) {
        const response = await fetch(`${stack.url}${route}`, {
          method: "POST",
          headers: { "x-api-key": madeUpKey(next++), "content-type": "application/json" },
          body: JSON.stringify({ model: "auto", max_tokens: 10, messages: [{ role: "user", content: "hello" }] }),
        });
        answer = { status: response.status, headers: Object.fromEntries(response.headers), text: await response.text() };
      }
      expect(answer.status, answer.text).toBe(429);
      expect(errorShapeProblem(answer, dialect)).toBeUndefined();
      expect(JSON.parse(answer.text)).toMatchObject({ error: { type: "rate_limit_error", code: "auth_failures_exceeded" } });
      expect(Number(answer.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    }
    // Without TRUSTED_PROXIES a client's X-Forwarded-For is not its address: naming another does not help it.
    const spoofed = await fetch(`${stack.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${madeUpKey(next++)}`, "x-forwarded-for": "192.0.2.99" },
      body: "{}",
    });
    expect(spoofed.status).toBe(429);
  });
});

describe("failed validations counted by the address a trusted proxy forwards (TRUSTED_PROXIES)", () => {
  let stack: GatewayStack;

  beforeAll(async () => {
    stack = await startStack({ backend: "postgresql", dataPlaneEnv: { TRUSTED_PROXIES: "loopback" } });
  });

  afterAll(async () => {
    await stack?.stop();
  });

  const ask = async (key: string, forwardedFor: string) => {
    const response = await fetch(`${stack.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "x-forwarded-for": forwardedFor, "content-type": "application/json" },
      body: JSON.stringify({ model: "auto", messages: [{ role: "user", content: "hello" }] }),
    });
    await response.arrayBuffer();
    return response.status;
  };

  it("limits each forwarded client on its own", async () => {
    const statuses: number[] = [];
    for (let index = 0; index < PER_MINUTE + 5; index++) statuses.push(await ask(madeUpKey(index), "198.51.100.1"));
    expect(statuses.slice(0, PER_MINUTE).every((status) => status === 401)).toBe(true);
    expect(statuses.at(-1)).toBe(429);
    // Another client behind the same proxy is asked as before.
    expect(await ask(madeUpKey(PER_MINUTE + 5), "198.51.100.2")).toBe(401);
  });
});
