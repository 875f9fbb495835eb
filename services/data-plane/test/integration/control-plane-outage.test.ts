// The control plane goes away: the data plane keeps its last good catalogue
// and cached keys, refuses what needs money (503, never unbilled), reports the
// outage, and recovers by itself when the control plane is back.
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
    const health = (await (await fetch(`${stack.url}/health`)).json()) as { status: string; detail: { control_plane: string } };
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
      subscription = ((await (await fetch(`${stack.url}/health`)).json()) as { detail: { control_plane: string } }).detail.control_plane;
      if (subscription !== "connected") await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(subscription).toBe("connected");
  });
});
