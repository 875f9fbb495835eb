// TLS on the control plane's two listeners, with certificates the test makes: gRPC (server certificate,
// and mutual TLS with a client CA) and the admin API over HTTPS; certificate files rewritten while it
// runs are taken for new connections (TLS_RELOAD_INTERVAL_MS), a broken rewrite keeps the last good
// pair; gatewayctl reaches the HTTPS admin API with the CA in NODE_EXTRA_CA_CERTS.
import * as grpc from "@grpc/grpc-js";
import { AUTH_METADATA_KEY, bearer, ControlPlaneClientConstructor } from "@gateway/proto";
import { execFile } from "node:child_process";
import https from "node:https";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repositoryRoot } from "../../../../deploy/local/service-process";
import { type EmbeddedControlPlane, startEmbeddedControlPlane } from "../harness/embedded-control-plane";
import { CertificateFolder, signedBy, type TestCa, type TestPair, testCa } from "../harness/test-certificates";

const ADMIN_TOKEN = "control-plane-tls-admin";
const INTERNAL_TOKEN = "internal"; // the embedded harness's

/** A ValidateKey call over a fresh connection: "ok", or the gRPC status it failed with. */
async function grpcCall(address: string, credentials: grpc.ChannelCredentials): Promise<"ok" | string> {
  // A channel of its own: a new connection, so a reloaded certificate is what it meets.
  const client = new ControlPlaneClientConstructor(address, credentials, { "grpc.use_local_subchannel_pool": 1 });
  const metadata = new grpc.Metadata();
  metadata.set(AUTH_METADATA_KEY, bearer(INTERNAL_TOKEN));
  try {
    return await new Promise((resolve) =>
      client.validateKey({ key: "sk_nope_x" }, metadata, { deadline: Date.now() + 10_000 }, (error) =>
        resolve(error ? grpc.status[error.code]! : "ok"),
      ),
    );
  } finally {
    client.close();
  }
}

const trusting = (ca: TestCa, client?: TestPair) =>
  grpc.credentials.createSsl(Buffer.from(ca.cert), client ? Buffer.from(client.key) : null, client ? Buffer.from(client.cert) : null);

/** GET over HTTPS trusting only `ca`: the status, or the TLS error's code. */
function httpsGet(url: string, ca: string, headers: Record<string, string> = {}): Promise<number | string> {
  return new Promise((resolve) => {
    const request = https.get(url, { ca, headers, agent: false }, (response) => {
      response.resume();
      resolve(response.statusCode!);
    });
    request.on("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    request.setTimeout(10_000, () => request.destroy(new Error("timeout")));
  });
}

describe("control plane over TLS (server certificates)", () => {
  const folder = new CertificateFolder();
  let caA: TestCa;
  let caB: TestCa;
  let serverA: TestPair;
  let embedded: EmbeddedControlPlane;

  beforeAll(async () => {
    [caA, caB] = await Promise.all([testCa("test CA A"), testCa("test CA B")]);
    serverA = await signedBy(caA, "server");
    for (const listener of ["grpc", "admin"]) {
      folder.write(`${listener}.crt`, serverA.cert);
      folder.write(`${listener}.key`, serverA.key);
    }
    embedded = await startEmbeddedControlPlane(ADMIN_TOKEN, {
      CONTROL_PLANE_GRPC_TLS_CERT_FILE: folder.path("grpc.crt"),
      CONTROL_PLANE_GRPC_TLS_KEY_FILE: folder.path("grpc.key"),
      CONTROL_PLANE_ADMIN_TLS_CERT_FILE: folder.path("admin.crt"),
      CONTROL_PLANE_ADMIN_TLS_KEY_FILE: folder.path("admin.key"),
      TLS_RELOAD_INTERVAL_MS: "200",
    });
  });

  afterAll(async () => {
    await embedded?.stop();
    folder.remove();
  });

  it("serves gRPC over TLS only: a client trusting the CA is answered, a plain or wrongly trusting one is not", async () => {
    const address = embedded.controlPlane.grpcAddress;
    expect(await grpcCall(address, trusting(caA))).toBe("ok");
    expect(await grpcCall(address, grpc.credentials.createInsecure())).toBe("UNAVAILABLE");
    expect(await grpcCall(address, trusting(caB))).toBe("UNAVAILABLE");
  });

  it("serves the admin API over HTTPS only", async () => {
    const url = embedded.controlPlane.adminUrl;
    expect(url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(await httpsGet(`${url}/health`, caA.cert)).toBe(200);
    expect(await httpsGet(`${url}/admin/projects`, caA.cert, { authorization: `Bearer ${ADMIN_TOKEN}` })).toBe(200);
    expect(await httpsGet(`${url}/health`, caB.cert)).toBe("UNABLE_TO_VERIFY_LEAF_SIGNATURE");
    await expect(fetch(`${url.replace("https:", "http:")}/health`)).rejects.toThrow();
  });

  it("lets gatewayctl reach the HTTPS admin API with the CA in NODE_EXTRA_CA_CERTS", async () => {
    const run = (extraCa: string) =>
      promisify(execFile)(
        process.execPath,
        ["--import", "tsx", "services/control-plane/src/cli/gatewayctl.ts", "projects", "list", "--json"],
        {
          cwd: repositoryRoot,
          env: {
            ...process.env,
            GATEWAY_ADMIN_URL: embedded.controlPlane.adminUrl,
            GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN,
            NODE_EXTRA_CA_CERTS: extraCa,
          },
        },
      );
    const { stdout } = await run(folder.write("ca-a.crt", caA.cert));
    expect(JSON.parse(stdout)).toEqual({ data: [] });
    await expect(run(folder.write("ca-b.crt", caB.cert))).rejects.toThrow();
  });

  it("takes rotated certificate files for new connections without a restart, and keeps the last good pair through a broken rewrite", async () => {
    const address = embedded.controlPlane.grpcAddress;
    const url = `${embedded.controlPlane.adminUrl}/health`;
    // A pair whose certificate and key do not match (caught mid-rotation): refused, A stays in use.
    const other = await signedBy(caB, "server");
    for (const listener of ["grpc", "admin"]) folder.write(`${listener}.crt`, other.cert);
    await new Promise((resolve) => setTimeout(resolve, 1500)); // several reload intervals
    expect(await grpcCall(address, trusting(caA))).toBe("ok");
    expect(await httpsGet(url, caA.cert)).toBe(200);

    // The rotation completes: new connections meet B's certificate.
    for (const listener of ["grpc", "admin"]) folder.write(`${listener}.key`, other.key);
    await expect.poll(() => grpcCall(address, trusting(caB)), { timeout: 20_000, interval: 300 }).toBe("ok");
    await expect.poll(() => httpsGet(url, caB.cert), { timeout: 20_000, interval: 300 }).toBe(200);
    expect(await grpcCall(address, trusting(caA))).toBe("UNAVAILABLE");
    expect(await httpsGet(url, caA.cert)).toBe("UNABLE_TO_VERIFY_LEAF_SIGNATURE");
  });
});

describe("control plane over mutual TLS", () => {
  const folder = new CertificateFolder();
  let serverCa: TestCa;
  let clientCa: TestCa;
  let strangerCa: TestCa;
  let embedded: EmbeddedControlPlane;

  beforeAll(async () => {
    [serverCa, clientCa, strangerCa] = await Promise.all([testCa("server CA"), testCa("client CA"), testCa("stranger CA")]);
    const server = await signedBy(serverCa, "server");
    embedded = await startEmbeddedControlPlane(ADMIN_TOKEN, {
      CONTROL_PLANE_GRPC_TLS_CERT_FILE: folder.write("server.crt", server.cert),
      CONTROL_PLANE_GRPC_TLS_KEY_FILE: folder.write("server.key", server.key),
      CONTROL_PLANE_GRPC_TLS_CLIENT_CA_FILE: folder.write("client-ca.crt", clientCa.cert),
    });
  });

  afterAll(async () => {
    await embedded?.stop();
    folder.remove();
  });

  it("answers only a data plane presenting a certificate the client CA signed", async () => {
    const address = embedded.controlPlane.grpcAddress;
    expect(await grpcCall(address, trusting(serverCa, await signedBy(clientCa, "client", "data-plane")))).toBe("ok");
    expect(await grpcCall(address, trusting(serverCa))).toBe("UNAVAILABLE");
    expect(await grpcCall(address, trusting(serverCa, await signedBy(strangerCa, "client", "intruder")))).toBe("UNAVAILABLE");
  });
});

describe("control plane TLS files at start-up", () => {
  it("refuses to start with a missing file or a certificate and key that do not match, naming them", async () => {
    const folder = new CertificateFolder();
    try {
      const ca = await testCa("CA");
      const [one, two] = await Promise.all([signedBy(ca, "server"), signedBy(ca, "server")]);
      const env = (certificate: string, key: string) => ({
        CONTROL_PLANE_ADMIN_TLS_CERT_FILE: certificate,
        CONTROL_PLANE_ADMIN_TLS_KEY_FILE: key,
      });
      await expect(
        startEmbeddedControlPlane(ADMIN_TOKEN, env(folder.path("absent.crt"), folder.write("one.key", one.key))),
      ).rejects.toThrow(`cannot read ${folder.path("absent.crt")}`);
      await expect(
        startEmbeddedControlPlane(ADMIN_TOKEN, env(folder.write("one.crt", one.cert), folder.write("two.key", two.key))),
      ).rejects.toThrow(`${folder.path("one.crt")} and ${folder.path("two.key")}: `);
    } finally {
      folder.remove();
    }
  });
});
