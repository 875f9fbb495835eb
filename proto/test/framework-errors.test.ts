// Node's clientError answers, written on the raw socket in the error table's shape (framework-errors.ts).
import { describe, expect, it } from "vitest";
import { answerClientError } from "../src/framework-errors";

function socket(options: { headersSent?: boolean } = {}) {
  const written: string[] = [];
  let destroyed = false;
  return {
    written,
    get destroyed() {
      return destroyed;
    },
    writable: true,
    _httpMessage: options.headersSent === undefined ? null : { headersSent: options.headersSent },
    write: (text: string) => written.push(text),
    destroy: () => {
      destroyed = true;
    },
  };
}

const bodyOf = (text: string) => text.slice(text.indexOf("\r\n\r\n") + 4);

describe("answerClientError", () => {
  it.each([
    ["HPE_HEADER_OVERFLOW", 431, "headers_too_large", "false"],
    ["ERR_HTTP_REQUEST_TIMEOUT", 408, "request_timeout", "true"],
    ["HPE_INVALID_METHOD", 400, "invalid_request", "false"],
  ])("answers %s with %d %s, then closes the socket", (code, status, tableCode, retry) => {
    const target = socket();
    answerClientError({ code, rawPacket: Buffer.from("GET / HTTP/1.1\r\n") }, target);
    const [text] = target.written;
    expect(text).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
    expect(text).toContain(`\r\nx-should-retry: ${retry}\r\n`);
    expect(text).toContain("\r\nconnection: close\r\n");
    expect(JSON.parse(bodyOf(text!))).toMatchObject({ error: { code: tableCode, type: "invalid_request_error" } });
    expect(target.destroyed).toBe(true);
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
