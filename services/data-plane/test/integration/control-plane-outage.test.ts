// The control plane goes away: the data plane keeps its last good catalogue
// and cached keys, refuses what needs money (503, never unbilled), reports the
// outage, and recovers by itself when the control plane is back.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { marker, startStack, type GatewayStack, type TestProject } from "../harness/gateway-stack";

describe("control plane outage", () => {
  let stack: GatewayStack;
  let project: TestProject;

  beforeAll(async () => {
    stack = await startStack({ backend: "pglite" });
    project = await stack.createProject({ balanceUsd: "1.00" });
  });

  afterAll(async () => {
    await stack?.stop();
  });

  const models = async () => {
    const response = await fetch(`${stack.url}/v1/models?all=1`, { headers: { authorization: `Bearer ${project.key}` } });
    return {
      status: response.status,
      ids: response.ok ? ((await response.json()) as { data: { id: string }[] }).data.map((entry) => entry.id) : [],
    };
  };
  const chat = (tag: string) =>
    stack.post("/v1/chat/completions", project.key, { model: "auto", messages: [{ role: "user", content: tag }] });

  it("serves the last good catalogue, refuses unbillable work, and recovers", async () => {
    const before = await models(); // also caches the key
    expect(before.status).toBe(200);
    expect(before.ids.length).toBeGreaterThan(300); // curated + inventory
    expect((await chat(marker())).status).toBe(200);

    await stack.controlPlane.stop();

    const during = await models();
    expect(during).toEqual(before);
    const health = await stack.dataPlaneHealth();
    expect(health).toMatchObject({ status: "ok", detail: { control_plane: "reconnecting" } });
    const tag = marker();
    const refused = await chat(tag);
    expect(refused.status).toBe(503);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("control_plane_unavailable");
    expect(await stack.mockRequestsWith(tag)).toHaveLength(0);

    await stack.restartControlPlane();
    let status = 0;
    for (let attempt = 0; attempt < 50 && status !== 200; attempt++) {
      status = (await chat(marker())).status;
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(status).toBe(200);
    // The subscription resubscribes on its own (every 0.5 s): the push path is back too.
    let subscription = "";
    for (let attempt = 0; attempt < 25 && subscription !== "connected"; attempt++) {
      subscription = (await stack.dataPlaneHealth<{ control_plane: string }>()).detail.control_plane;
      if (subscription !== "connected") await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(subscription).toBe("connected");
  });
});

describe("a stalled database under the control plane", () => {
  const DEADLINE_MS = 3000;
  let stack: GatewayStack;
  let project: TestProject;

  beforeAll(async () => {
    stack = await startStack({
      backend: "postgresql",
      // Every request reserves (no budget leases), so each one needs the database.
      dataPlaneEnv: { CONTROL_PLANE_DEADLINE_MS: String(DEADLINE_MS), LEASE_MIN_REQUESTS_PER_SECOND: "0" },
    });
    project = await stack.createProject({ balanceUsd: "1.00" });
  });

  afterAll(async () => {
    await stack?.stop();
  });

  const chat = async () => {
    const started = performance.now();
    const response = await stack.post("/v1/chat/completions", project.key, {
      model: "auto",
      messages: [{ role: "user", content: marker() }],
    });
    const body = (await response.json()) as { error?: { code: string } };
    return { status: response.status, code: body.error?.code, ms: performance.now() - started };
  };
  const health = async () => (await stack.dataPlaneHealth<{ control_plane_calls: string }>()).detail.control_plane_calls;
  const metric = async (pattern: RegExp) => {
    const text = await (await fetch(`${stack.metricsUrl}/metrics`)).text();
    return [...text.matchAll(pattern)].reduce((sum, match) => sum + Number(match[1]), 0);
  };
  const reserveCalls = () => metric(/^gateway_control_plane_call_seconds_count\{method="Reserve",[^}]*\} (\d+)$/gm);

  it("once a call has run out its deadline, requests get 503 at once instead of each waiting it; the first answer in time ends it", async () => {
    expect((await chat()).status).toBe(200); // caches the key
    expect(await health()).toBe("in_time");

    // The database stalls: every statement touching projects waits on this lock.
    const locker = new pg.Client({ connectionString: stack.databaseUrl });
    await locker.connect();
    try {
      await locker.query("BEGIN");
      await locker.query("LOCK TABLE projects IN ACCESS EXCLUSIVE MODE");

      const first = await chat();
      expect(first).toMatchObject({ status: 503, code: "control_plane_unavailable" });
      expect(first.ms).toBeGreaterThanOrEqual(DEADLINE_MS - 50); // it waited out the deadline
      expect(await health()).toBe("stalled");

      const callsBefore = await reserveCalls();
      const next = [];
      for (let i = 0; i < 5; i++) next.push(await chat());
      for (const answer of next) expect(answer).toMatchObject({ status: 503, code: "control_plane_unavailable" });
      // None of them was sent to the stalled control plane, so none waited for it.
      expect(await reserveCalls()).toBe(callsBefore);
      expect(await metric(/^gateway_control_plane_fast_failures_total (\d+)$/gm)).toBe(5);
      expect(Math.max(...next.map((answer) => answer.ms))).toBeLessThan(DEADLINE_MS / 2);
    } finally {
      await locker.query("ROLLBACK");
      await locker.end();
    }

    // One probe per deadline's length goes through; the database answers it, and requests flow again.
    let answered = 0;
    for (let attempt = 0; attempt < 40 && answered !== 200; attempt++) {
      answered = (await chat()).status;
      if (answered !== 200) await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(answered).toBe(200);
    expect(await health()).toBe("in_time");
  });
});
