// The data plane's link to the control plane over mutual TLS, with certificates the test makes: the
// control plane requires a client certificate its client CA signed, the data plane checks the control
// plane's certificate against CONTROL_PLANE_TLS_CA_FILE and presents its own. Key checks, holds,
// settles and the Subscribe stream all travel that link: a billed chat answer shows they do.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CertificateFolder, signedBy, testCa } from "../../../control-plane/test/harness/test-certificates";
import { type GatewayStack, startStack, type TestProject } from "../harness/gateway-stack";

describe("data plane to control plane over mutual TLS", () => {
  const folder = new CertificateFolder();
  let stack: GatewayStack;
  let project: TestProject;

  beforeAll(async () => {
    const [serverCa, clientCa] = await Promise.all([testCa("control-plane CA"), testCa("data-plane CA")]);
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
});
