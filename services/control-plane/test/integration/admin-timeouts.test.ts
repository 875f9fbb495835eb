// A client that sends its request a byte at a time cannot hold an admin API connection for ever:
// the headers must arrive within ADMIN_HEADERS_TIMEOUT_MS and the whole request within
// ADMIN_REQUEST_TIMEOUT_MS, else 408 request_timeout in the error table's shape and the connection
// closes (fastify's default was no request timeout at all). Over HTTPS too (the server fastify builds then
// is another one).
import net from "node:net";
import tls from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EmbeddedControlPlane, startEmbeddedControlPlane } from "../harness/embedded-control-plane";
import { CertificateFolder, signedBy, testCa } from "../harness/test-certificates";

const ADMIN_TOKEN = "admin-timeouts-token";

/**
 * Sends `head` at once, then one byte of `trickle` every `everyMs`; resolves with what came back and when
 * the connection closed (ms after the start), or after `giveUpMs` with what it had.
 */
function slowClient(url: string, head: string, trickle: string, everyMs: number, giveUpMs: number) {
  const { hostname, port } = new URL(url);
  return new Promise<{ received: string; closedAfterMs: number | undefined }>((resolve) => {
    const started = performance.now();
    const socket = url.startsWith("https:")
      ? tls.connect({ port: Number(port), host: hostname, rejectUnauthorized: false })
      : net.connect(Number(port), hostname);
    let received = "";
    let next = 0;
    let timer: NodeJS.Timeout | undefined;
    const finish = (closedAfterMs: number | undefined) => {
      clearInterval(timer);
      clearTimeout(giveUp);
      socket.destroy();
      resolve({ received, closedAfterMs });
    };
    const giveUp = setTimeout(() => finish(undefined), giveUpMs);
    // The trickle starts once the head is written: over TLS the handshake may take longer than one tick.
    socket.on(url.startsWith("https:") ? "secureConnect" : "connect", () => {
      socket.write(head);
      timer = setInterval(() => {
        if (next < trickle.length && socket.writable) socket.write(trickle[next++]!);
      }, everyMs);
    });
    socket.on("data", (chunk) => {
      received += chunk.toString("latin1");
    });
    socket.on("close", () => finish(performance.now() - started));
    socket.on("error", () => {});
  });
}

const bodyOf = (response: string) => JSON.parse(response.slice(response.indexOf("\r\n\r\n") + 4)) as unknown;

const TIMEOUTS = { ADMIN_HEADERS_TIMEOUT_MS: "1000", ADMIN_REQUEST_TIMEOUT_MS: "2000" };
const folder = new CertificateFolder();
/** The admin API over HTTP and, with a certificate, over HTTPS (fastify builds another server then): started together. */
let embedded: EmbeddedControlPlane;
let overHttps: EmbeddedControlPlane;

beforeAll(async () => {
  const server = await signedBy(await testCa("admin CA"), "server");
  [embedded, overHttps] = await Promise.all([
    startEmbeddedControlPlane(ADMIN_TOKEN, TIMEOUTS),
    startEmbeddedControlPlane(ADMIN_TOKEN, {
      ...TIMEOUTS,
      CONTROL_PLANE_ADMIN_TLS_CERT_FILE: folder.write("admin.crt", server.cert),
      CONTROL_PLANE_ADMIN_TLS_KEY_FILE: folder.write("admin.key", server.key),
    }),
  ]);
});

afterAll(async () => {
  await Promise.all([embedded?.stop(), overHttps?.stop()]);
  folder.remove();
});

// Concurrent: each test mostly waits for a timeout.
describe.concurrent("admin API request timeouts", () => {
  it("answers a body sent a byte at a time with 408 request_timeout once the request timeout is over, and closes", async () => {
    const body = JSON.stringify({ name: "slow".repeat(40) });
    const head = `POST /admin/projects HTTP/1.1\r\nhost: localhost\r\nauthorization: Bearer ${ADMIN_TOKEN}\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n`;
    // 160 bytes, one every 250 ms: 40 s to send the whole body. Before the fix the connection stayed open throughout.
    const result = await slowClient(embedded.controlPlane.adminUrl, head, body, 250, 15_000);
    expect(result.received).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(bodyOf(result.received)).toMatchObject({
      error: { type: "invalid_request_error", code: "request_timeout", message: "The request did not arrive in time. Send it again." },
    });
    expect(result.closedAfterMs).toBeGreaterThanOrEqual(2000);
    expect(result.closedAfterMs).toBeLessThan(15_000);
  });

  it("answers headers sent a byte at a time with 408 once the headers timeout is over", async () => {
    const headers = `x-slow: ${"z".repeat(200)}\r\n\r\n`;
    const result = await slowClient(embedded.controlPlane.adminUrl, "GET /health HTTP/1.1\r\nhost: localhost\r\n", headers, 100, 15_000);
    expect(result.received).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(bodyOf(result.received)).toMatchObject({ error: { code: "request_timeout" } });
    expect(result.closedAfterMs).toBeGreaterThanOrEqual(1000);
    expect(result.closedAfterMs).toBeLessThan(15_000);
  });

  it("still answers a request that arrives in time", async () => {
    const response = await fetch(`${embedded.controlPlane.adminUrl}/health`);
    expect(response.status).toBe(200);
  });
});

describe.concurrent("admin API request timeouts over HTTPS", () => {
  it("answers a body sent a byte at a time with 408 once the request timeout is over, and closes", async () => {
    expect(overHttps.controlPlane.adminUrl).toMatch(/^https:/);
    const body = JSON.stringify({ name: "slow".repeat(40) });
    const head = `POST /admin/projects HTTP/1.1\r\nhost: localhost\r\nauthorization: Bearer ${ADMIN_TOKEN}\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n`;
    const result = await slowClient(overHttps.controlPlane.adminUrl, head, body, 250, 15_000);
    expect(result.received).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(bodyOf(result.received)).toMatchObject({ error: { code: "request_timeout" } });
    expect(result.closedAfterMs).toBeGreaterThanOrEqual(2000);
    expect(result.closedAfterMs).toBeLessThan(15_000);
  });

  it("answers headers sent a byte at a time with 408 once the headers timeout is over", async () => {
    const headers = `x-slow: ${"z".repeat(200)}\r\n\r\n`;
    const result = await slowClient(overHttps.controlPlane.adminUrl, "GET /health HTTP/1.1\r\nhost: localhost\r\n", headers, 100, 15_000);
    expect(result.received).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(result.closedAfterMs).toBeGreaterThanOrEqual(1000);
    expect(result.closedAfterMs).toBeLessThan(15_000);
  });
});
