// The data plane's link to the control plane over mutual TLS, with certificates the test makes: the
// control plane requires a client certificate its client CA signed, the data plane checks the control
// plane's certificate against CONTROL_PLANE_TLS_CA_FILE and presents its own. Key checks, holds,
// settles and the Subscribe stream all travel that link: a billed chat answer shows they do. And the data
// plane does check: a control plane whose certificate another CA signed, or that names another host, is
// never its control plane.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ServiceProcess, startService } from "../../../../deploy/local/service-process";
import { CertificateFolder, signedBy, testCa } from "../../../control-plane/test/harness/test-certificates";
import { type GatewayStack, startStack, type TestProject } from "../harness/gateway-stack";

describe("data plane to control plane over mutual TLS", () => {
  const folder = new CertificateFolder();
  let stack: GatewayStack;
  let project: TestProject;
  const strangers: ServiceProcess[] = [];
  let clientFiles: Record<string, string>;
  let otherCaFile: string;

  beforeAll(async () => {
    const [serverCa, clientCa, otherCa] = await Promise.all([testCa("control-plane CA"), testCa("data-plane CA"), testCa("another CA")]);
    otherCaFile = folder.write("another-ca.crt", otherCa.cert);
    const [server, client] = await Promise.all([signedBy(serverCa, "server"), signedBy(clientCa, "client", "data-plane")]);
    stack = await startStack({
      backend: "pglite",
      controlPlaneEnv: {
        CONTROL_PLANE_GRPC_TLS_CERT_FILE: folder.write("control-plane.crt", server.cert),
        CONTROL_PLANE_GRPC_TLS_KEY_FILE: folder.write("control-plane.key", server.key),
        CONTROL_PLANE_GRPC_TLS_CLIENT_CA_FILE: folder.write("data-plane-ca.crt", clientCa.cert),
      },
      dataPlaneEnv: {
        CONTROL_PLANE_TLS_CA_FILE: folder.write("control-plane-ca.crt", serverCa.cert),
        CONTROL_PLANE_TLS_CERT_FILE: folder.write("data-plane.crt", client.cert),
        CONTROL_PLANE_TLS_KEY_FILE: folder.write("data-plane.key", client.key),
      },
    });
    project = await stack.createProject({ balanceUsd: "1.00" });
    clientFiles = {
      CONTROL_PLANE_TLS_CERT_FILE: folder.write("data-plane.crt", client.cert),
      CONTROL_PLANE_TLS_KEY_FILE: folder.write("data-plane.key", client.key),
    };
  });

  afterAll(async () => {
    for (const stranger of strangers) await stranger.stop();
    await stack?.stop();
    folder.remove();
  });

  it("serves and bills a chat answer through the TLS link, and reports the link connected", async () => {
    await expect.poll(async () => (await fetch(`${stack.url}/health`)).status, { timeout: 30_000, interval: 250 }).toBe(200);
    const response = await stack.post("/v1/chat/completions", project.key, { model: "auto", messages: [{ role: "user", content: "hi" }] });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { usage: { cost: number } };
    expect(body.usage.cost).toBeGreaterThan(0);
    await stack.drawsLanded();
    const debits = (await stack.ledger(project.projectId)).filter((entry) => entry.kind === "debit");
    expect(debits).toHaveLength(1);
  });

  it("never takes a control plane whose certificate another CA signed, or names another host", { timeout: 90_000 }, async () => {
    const grpcPort = new URL(`http://${stack.controlPlane.ready.grpc}`).port;
    const dataPlane = (label: string, env: Record<string, string>) =>
      startService(
        "data-plane",
        { GATEWAY_INTERNAL_TOKEN: stack.internalToken, DATA_PLANE_PORT: "0", METRICS_PORT: "0", LOG_LEVEL: "warn", ...clientFiles, ...env },
        { label, timeoutMs: 60_000 },
      );
    // Each presents a client certificate the control plane takes: only the server's side is wrong.
    strangers.push(
      ...(await Promise.all([
        dataPlane("data-plane-other-ca", { CONTROL_PLANE_ADDRESS: `127.0.0.1:${grpcPort}`, CONTROL_PLANE_TLS_CA_FILE: otherCaFile }),
        // 127.0.0.2 reaches the same listener; the certificate names localhost and 127.0.0.1 only.
        dataPlane("data-plane-other-host", {
          CONTROL_PLANE_ADDRESS: `127.0.0.2:${grpcPort}`,
          CONTROL_PLANE_TLS_CA_FILE: folder.path("control-plane-ca.crt"),
        }),
      ])),
    );
    for (const stranger of strangers) {
      const health = (await (await fetch(`${stranger.ready.metrics}/health`)).json()) as {
        status: string;
        detail: { control_plane: string };
      };
      expect([health.status, health.detail.control_plane]).toEqual(["unavailable", "reconnecting"]);
      // No key can be checked, so none is admitted: nothing reaches the control plane over the refused link.
      const answer = await fetch(`${stranger.ready.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${project.key}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "auto", messages: [{ role: "user", content: "hi" }] }),
      });
      expect(answer.status).toBe(503);
    }
  });
});
