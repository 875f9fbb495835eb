// One HTTP/1.1 request through node:http, whatever its method, path or body (fetch refuses TRACE,
// rewrites paths and cannot send invalid bytes): the status, headers and body text, or the network
// error a client would have seen instead of an answer.
import http from "node:http";
import net from "node:net";

export interface RawRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

export interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  /** Set when no answer arrived (a reset or closed connection, a timeout). */
  networkError?: string;
}

export function rawRequest(baseUrl: string, request: RawRequest, agent: http.Agent, timeoutMs = 20_000): Promise<RawAnswer> {
  const { hostname, port } = new URL(baseUrl);
  // Framed as every real client frames a body, whatever the method (node:http leaves a GET's body unframed).
  const headers =
    request.body === undefined ? request.headers : { ...request.headers, "content-length": String(Buffer.byteLength(request.body)) };
  return new Promise((resolve) => {
    const outgoing = http.request(
      { host: hostname, port, method: request.method, path: request.path, headers, agent, timeout: timeoutMs },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, text: Buffer.concat(chunks).toString("utf8") }),
        );
        response.on("error", (error) => resolve({ status: 0, headers: {}, text: "", networkError: error.message }));
      },
    );
    outgoing.on("timeout", () => outgoing.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    outgoing.on("error", (error) => resolve({ status: 0, headers: {}, text: "", networkError: error.message }));
    outgoing.end(request.body);
  });
}

/** What a raw socket received, cut into its HTTP/1.1 answers (Content-Length framed, as every error answer is). */
export interface SocketAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Writes `chunks` on one connection, each once its `after` settled (so a later request can arrive
 * while an earlier one is in flight), and reads until the server closes it.
 */
export function socketExchange(baseUrl: string, chunks: { text: string; after?: Promise<unknown> }[]): Promise<SocketAnswer[]> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, async () => {
      for (const chunk of chunks) {
        await chunk.after;
        if (!socket.destroyed) socket.write(chunk.text);
      }
    });
    const received: Buffer[] = [];
    socket.on("data", (data: Buffer) => received.push(data));
    socket.on("close", () => resolve(splitAnswers(Buffer.concat(received).toString("utf8"))));
    socket.on("error", (error) => (received.length > 0 ? undefined : reject(error)));
  });
}

function splitAnswers(text: string): SocketAnswer[] {
  const answers: SocketAnswer[] = [];
  let rest = text;
  while (rest.startsWith("HTTP/1.1 ")) {
    const headEnd = rest.indexOf("\r\n\r\n");
    if (headEnd < 0) break;
    const [statusLine, ...lines] = rest.slice(0, headEnd).split("\r\n");
    const headers = Object.fromEntries(
      lines.map((line) => [line.slice(0, line.indexOf(":")).toLowerCase(), line.slice(line.indexOf(":") + 1).trim()]),
    );
    const length = Number(headers["content-length"] ?? 0);
    answers.push({ status: Number(statusLine!.split(" ")[1]), headers, body: rest.slice(headEnd + 4, headEnd + 4 + length) });
    rest = rest.slice(headEnd + 4 + length);
  }
  return answers;
}

/**
 * A request whose body is written at `bytesPerSecond` (as over a network link; loopback delivers many
 * gigabytes a second), in 64 KiB pieces; writing stops once the answer has arrived, as a client's does.
 */
export function pacedRequest(
  baseUrl: string,
  request: RawRequest & { body: Buffer },
  bytesPerSecond: number,
  agent: http.Agent,
  timeoutMs = 60_000,
): Promise<RawAnswer> {
  const { hostname, port } = new URL(baseUrl);
  const piece = 64 * 1024;
  const headers = { ...request.headers, "content-length": String(request.body.length) };
  return new Promise((resolve) => {
    let answered = false;
    const finish = (answer: RawAnswer) => {
      if (answered) return;
      answered = true;
      resolve(answer);
      outgoing.destroy();
    };
    const outgoing = http.request(
      { host: hostname, port, method: request.method, path: request.path, headers, agent, timeout: timeoutMs },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () =>
          finish({ status: response.statusCode ?? 0, headers: response.headers, text: Buffer.concat(chunks).toString("utf8") }),
        );
        response.on("error", (error) => finish({ status: 0, headers: {}, text: "", networkError: error.message }));
      },
    );
    outgoing.on("timeout", () => outgoing.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    outgoing.on("error", (error) => finish({ status: 0, headers: {}, text: "", networkError: error.message }));
    const started = performance.now();
    let sent = 0;
    const writeMore = () => {
      if (answered || outgoing.destroyed) return;
      // Ahead of the schedule: wait for it; behind it (a busy machine): one piece at a time, never a burst.
      const due = Math.min(request.body.length, Math.floor(((performance.now() - started) / 1000) * bytesPerSecond));
      if (sent < due || sent === 0) {
        const end = Math.min(sent + piece, request.body.length);
        const last = end === request.body.length;
        const chunk = request.body.subarray(sent, end);
        sent = end;
        if (last) return void outgoing.end(chunk);
        if (!outgoing.write(chunk)) return void outgoing.once("drain", writeMore);
        return void setImmediate(writeMore);
      }
      setTimeout(writeMore, Math.max(1, ((sent - due) / bytesPerSecond) * 1000));
    };
    writeMore();
  });
}
