// Certificates made by the test itself (the `selfsigned` package; EC P-256, quick): a CA, a server
// certificate it signs for 127.0.0.1 and localhost, a client certificate for mutual TLS, written as PEM
// files into a scratch folder.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { generate } from "selfsigned";

export interface TestCa {
  cert: string;
  key: string;
}

export interface TestPair {
  cert: string;
  key: string;
}

const ec = { keyType: "ec", algorithm: "sha256" } as const;

export async function testCa(name: string): Promise<TestCa> {
  const made = await generate([{ name: "commonName", value: name }], {
    ...ec,
    extensions: [
      { name: "basicConstraints", cA: true, critical: true },
      { name: "keyUsage", keyCertSign: true, cRLSign: true, critical: true },
    ],
  });
  return { cert: made.cert, key: made.private };
}

/** A certificate `ca` signs: for a server (127.0.0.1, localhost) or a client. */
export async function signedBy(ca: TestCa, use: "server" | "client", name: string = use): Promise<TestPair> {
  const made = await generate([{ name: "commonName", value: name }], {
    ...ec,
    ca: { key: ca.key, cert: ca.cert },
    extensions: [
      { name: "basicConstraints", cA: false },
      { name: "keyUsage", digitalSignature: true, critical: true },
      { name: "extKeyUsage", serverAuth: use === "server", clientAuth: use === "client" },
      ...(use === "server"
        ? [
            {
              name: "subjectAltName" as const,
              altNames: [
                { type: 2 as const, value: "localhost" },
                { type: 7 as const, ip: "127.0.0.1" },
              ],
            },
          ]
        : []),
    ],
  });
  return { cert: made.cert, key: made.private };
}

/** A scratch folder of PEM files: `write` puts a file (a rotation rewrites one), `path` names it. */
export class CertificateFolder {
  readonly directory = mkdtempSync(path.join(os.tmpdir(), "gateway-tls-"));

  path(name: string): string {
    return path.join(this.directory, name);
  }

  write(name: string, pem: string): string {
    writeFileSync(this.path(name), pem);
    return this.path(name);
  }

  remove(): void {
    rmSync(this.directory, { recursive: true, force: true });
  }
}
