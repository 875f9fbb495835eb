// The data plane's link to the control plane over mutual TLS, with certificates the test makes: the
// control plane requires a client certificate its client CA signed, the data plane checks the control
// plane's certificate against CONTROL_PLANE_TLS_CA_FILE and presents its own. Key checks, holds,
// settles and the Subscribe stream all travel that link: a billed chat answer shows they do. And the data
// plane does check: a control plane whose certificate another CA signed, or that names another host, is
// never its control plane.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ControlPlaneClientWrapper } from "../../src/control-plane/control-plane-client";
import { controlPlaneCredentials } from "../../src/control-plane/control-plane-tls";
import { CertificateFolder, signedBy, testCa } from "../../../control-plane/test/harness/test-certificates";
import { type GatewayStack, startStack, type TestProject } from "../harness/gateway-stack";

describe("data plane to control plane over mutual TLS", () => {
  const folder = new CertificateFolder();
  let stack: GatewayStack;
  let project: TestProject;
  let clientFiles: { certificateFile: string; privateKeyFile: string };
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
    clientFiles = { certificateFile: folder.path("data-plane.crt"), privateKeyFile: folder.path("data-plane.key") };
  });

  afterAll(async () => {
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

  it("never takes a control plane whose certificate another CA signed, or names another host", async () => {
    const grpcPort = new URL(`http://${stack.controlPlane.ready.grpc}`).port;
    // The data plane's own link (its credentials and client), in this process: each presents a client
    // certificate the control plane takes, so only the server's side is wrong.
    const link = (address: string, caFile: string) =>
      new ControlPlaneClientWrapper(
        address,
        stack.internalToken,
        5_000,
        controlPlaneCredentials({ controlPlaneTls: { caFile, ...clientFiles }, tlsReloadIntervalMs: 60_000 }, () => {}),
      );
    const cases = [
      link(`127.0.0.1:${grpcPort}`, otherCaFile),
      // 127.0.0.2 reaches the same listener; the certificate names localhost and 127.0.0.1 only.
      link(`127.0.0.2:${grpcPort}`, folder.path("control-plane-ca.crt")),
    ];
    const trusted = link(`127.0.0.1:${grpcPort}`, folder.path("control-plane-ca.crt"));
    try {
      // The same call through the right CA and host is answered: the two refusals are the certificate's.
      expect(await trusted.validateKey(project.key)).toMatchObject({ valid: true });
      for (const client of cases)
        await expect(client.validateKey(project.key)).rejects.toMatchObject({ kind: "control_plane_unavailable" });
    } finally {
      for (const client of [...cases, trusted]) client.close();
    }
  });
});
