// Node's clientError answers, written on the raw socket in the error table's shape (framework-errors.ts).
import http from "node:http";
import net from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import { answerClientError, LINGER_MS } from "../src/framework-errors";

function socket(options: { headersSent?: boolean } = {}) {
  const written: string[] = [];
  let destroyed = false;
  let ended = false;
  return {
    written,
    get destroyed() {
      return destroyed;
    },
    get ended() {
      return ended;
    },
    get writable() {
      return !ended && !destroyed;
    },
    _httpMessage: options.headersSent === undefined ? null : { headersSent: options.headersSent },
    write: (text: string) => written.push(text),
    end: () => {
      ended = true;
    },
    resume: () => undefined,
    on: () => undefined,
    destroy: () => {
      destroyed = true;
    },
  };
}

const bodyOf = (text: string) => text.slice(text.indexOf("\r\n\r\n") + 4);

describe("answerClientError", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it.each([
    ["HPE_HEADER_OVERFLOW", 431, "headers_too_large", "false"],
    ["ERR_HTTP_REQUEST_TIMEOUT", 408, "request_timeout", "true"],
    ["HPE_INVALID_METHOD", 400, "invalid_request", "false"],
  ])("answers %s with %d %s, then closes the socket", (code, status, tableCode, retry) => {
    vi.useFakeTimers();
    const target = socket();
    answerClientError({ code, rawPacket: Buffer.from("GET / HTTP/1.1\r\n") }, target);
    const [text] = target.written;
    expect(text).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
    expect(text).toContain(`\r\nx-should-retry: ${retry}\r\n`);
    expect(text).toContain("\r\nconnection: close\r\n");
    expect(JSON.parse(bodyOf(text!))).toMatchObject({ error: { code: tableCode, type: "invalid_request_error" } });
    // Half-closed after the answer, and closed for good once the linger is over; a further parse error answers nothing.
    expect([target.ended, target.destroyed]).toEqual([true, false]);
    answerClientError({ code }, target);
    expect(target.written).toHaveLength(1);
    vi.advanceTimersByTime(LINGER_MS);
    expect(target.destroyed).toBe(true);
  });

  it("lets a client still sending a body after oversized headers read the 431, not a reset", async () => {
    const server = http.createServer((_request, response) => response.end());
    server.on("clientError", answerClientError);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as net.AddressInfo;
    const body = 4 * 1024 * 1024;
    // Written at once: when the parser refuses the headers, most of the body is still unread on the server.
    const request = `POST / HTTP/1.1\r\nhost: x\r\nx-big: ${"h".repeat(20_000)}\r\ncontent-length: ${body}\r\n\r\n${"b".repeat(body)}`;
    const outcome = await new Promise<{ received: string; error?: string }>((resolve) => {
      const client = net.connect(port, "127.0.0.1", () => client.write(request));
      let received = "";
      let error: string | undefined;
      client.on("data", (chunk: Buffer) => (received += chunk.toString("latin1")));
      client.on("error", (failure: NodeJS.ErrnoException) => (error = failure.code));
      client.on("close", () => resolve({ received, error }));
    });
    server.close();
    expect(outcome.error).toBeUndefined();
    expect(outcome.received).toMatch(/^HTTP\/1\.1 431 /);
  });

  it("sends a HEAD's answer without a body (a client would read one as a second answer)", () => {
    const target = socket();
    answerClientError({ code: "HPE_HEADER_OVERFLOW", rawPacket: Buffer.from("HEAD /health HTTP/1.1\r\n") }, target);
    expect(target.written[0]).toMatch(/^HTTP\/1\.1 431 /);
    expect(bodyOf(target.written[0]!)).toBe("");
  });

  it("writes nothing on a reset connection or after an answer began", () => {
    const reset = socket();
    answerClientError({ code: "ECONNRESET" }, reset);
    const answering = socket({ headersSent: true });
    answerClientError({ code: "HPE_INVALID_METHOD" }, answering);
    expect([reset.written, answering.written]).toEqual([[], []]);
    expect(answering.destroyed).toBe(true);
  });
});
