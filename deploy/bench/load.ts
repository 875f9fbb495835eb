// The two clients of the benchmark, both run in the benchmark's own process
// (pinned to the load core):
// - `drive`: autocannon (programmatic API) at a fixed concurrency for a fixed
//   duration. autocannon's own histogram keeps whole milliseconds, too coarse for
//   sub-millisecond overheads, so every response's exact latency is taken from
//   its `response` event and the percentiles are computed here.
// - `measureFirstToken`: a small node:http client that sends streamed requests
//   and records, per request, when the first `data:` event carrying content
//   (a non-empty `choices[0].delta.content`) arrived.
import { createRequire } from "node:module";
import http from "node:http";

export const AUTOCANNON = "autocannon@9.0.0";

interface AutocannonOptions {
  url: string;
  connections: number;
  duration: number;
  method: string;
  headers: Record<string, string>;
  body: string;
  pipelining: number;
  timeout: number;
}
interface AutocannonInstance {
  on(event: "response", listener: (client: unknown, statusCode: number, bytes: number, responseTimeMs: number) => void): void;
}
type Autocannon = (
  options: AutocannonOptions,
  done: (error: Error | null, result: { errors: number; timeouts: number }) => void,
) => AutocannonInstance;

let autocannon: Autocannon | undefined;

function loadAutocannon(): Autocannon {
  if (autocannon) return autocannon;
  try {
    // CommonJS resolution, so NODE_PATH also works for a copy installed outside the workspace.
    autocannon = createRequire(import.meta.url)("autocannon") as Autocannon;
    return autocannon;
  } catch {
    throw new Error(
      `the benchmark drives load with ${AUTOCANNON}: add it (pnpm add -D -w ${AUTOCANNON}) ` +
        `or point NODE_PATH at a node_modules that holds it (npm install --prefix /tmp/autocannon ${AUTOCANNON}; NODE_PATH=/tmp/autocannon/node_modules)`,
    );
  }
}

export interface Target {
  url: string;
  headers: Record<string, string>;
}

export interface Percentiles {
  p50: number;
  p99: number;
  mean: number;
  samples: number;
}

export interface LoadSamples {
  /** Responses with a 2xx status. */
  ok: number;
  /** Other statuses, connection errors and timeouts. */
  failed: number;
  /** Latency of every 2xx response, in milliseconds. */
  latencies: number[];
}

export function percentiles(values: number[]): Percentiles {
  if (values.length === 0) return { p50: Number.NaN, p99: Number.NaN, mean: Number.NaN, samples: 0 };
  const sorted = Float64Array.from(values).sort();
  const at = (fraction: number) => sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)]!;
  return { p50: at(0.5), p99: at(0.99), mean: values.reduce((sum, value) => sum + value, 0) / values.length, samples: values.length };
}

/** autocannon against `target` with `connections` connections for `seconds`. */
/** `rate`: requests a second in all, sent at that pace (autocannon's overallRate); without it, each connection sends as fast as it is answered. */
export function drive(target: Target, body: string, connections: number, seconds: number, rate?: number): Promise<LoadSamples> {
  const run = loadAutocannon();
  const latencies: number[] = [];
  let ok = 0;
  let failed = 0;
  return new Promise((resolve, reject) => {
    const instance = run(
      {
        url: target.url,
        connections,
        duration: seconds,
        method: "POST",
        headers: { "content-type": "application/json", ...target.headers },
        body,
        pipelining: 1,
        timeout: 30,
        ...(rate ? { overallRate: rate } : {}),
      },
      (error, result) => {
        if (error) return reject(error);
        failed += result.errors + result.timeouts;
        resolve({ ok, failed, latencies });
      },
    );
    instance.on("response", (_client, statusCode, _bytes, responseTimeMs) => {
      if (statusCode >= 200 && statusCode < 300) {
        ok++;
        latencies.push(responseTimeMs);
      } else failed++;
    });
  });
}

export interface FirstTokenSamples {
  ok: number;
  failed: number;
  /** Per successful stream: milliseconds to the first event with content, and to the end. */
  firstToken: number[];
  total: number[];
}

/** Produced text in one `data:` line of any dialect: a chat delta, a Responses text delta, an Anthropic text delta. */
export function hasContent(line: string): boolean {
  if (!line.startsWith("data:")) return false;
  const data = line.slice(5).trim();
  if (data === "[DONE]") return false;
  try {
    const event = JSON.parse(data) as {
      type?: string;
      choices?: { delta?: { content?: unknown } }[];
      delta?: unknown;
    };
    const content =
      event.type === "response.output_text.delta"
        ? event.delta
        : event.type === "content_block_delta"
          ? (event.delta as { text?: unknown } | undefined)?.text
          : event.choices?.[0]?.delta?.content;
    return typeof content === "string" && content.length > 0;
  } catch {
    return false;
  }
}

/** Streamed requests from `concurrency` loops for `seconds`; time to the first content event and to the end. */
export async function measureFirstToken(target: Target, body: string, concurrency: number, seconds: number): Promise<FirstTokenSamples> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const url = new URL(target.url);
  const firstToken: number[] = [];
  const total: number[] = [];
  let failed = 0;
  const one = () =>
    new Promise<void>((resolve) => {
      const started = performance.now();
      let first: number | undefined;
      let pending = "";
      const request = http.request(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: "POST",
          agent,
          headers: { "content-type": "application/json", ...target.headers },
        },
        (response) => {
          response.setEncoding("utf8");
          response.on("data", (chunk: string) => {
            if (first !== undefined) return;
            pending += chunk;
            const lines = pending.split("\n");
            pending = lines.pop() ?? "";
            if (lines.some(hasContent)) first = performance.now() - started;
          });
          response.on("end", () => {
            if (response.statusCode === 200 && first !== undefined) {
              firstToken.push(first);
              total.push(performance.now() - started);
            } else failed++;
            resolve();
          });
          response.on("error", () => {
            failed++;
            resolve();
          });
        },
      );
      request.on("error", () => {
        failed++;
        resolve();
      });
      request.end(body);
    });
  const deadline = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) await one();
    }),
  );
  agent.destroy();
  return { ok: firstToken.length, failed, firstToken, total };
}

/** A Responses API body (the same bytes to every target). */
export function responsesBody(model: string, mode: "json" | "stream"): string {
  return JSON.stringify(mode === "stream" ? { model, stream: true, input: "Hello" } : { model, input: "Hello" });
}

/** An Anthropic Messages body (the same bytes to every target). */
export function messagesBody(model: string, mode: "json" | "stream"): string {
  const messages = [{ role: "user", content: "Hello" }];
  return JSON.stringify(mode === "stream" ? { model, max_tokens: 1024, stream: true, messages } : { model, max_tokens: 1024, messages });
}

/**
 * The benchmark's chat body, json or stream. The same bytes go to every target: the gateway forces
 * include_usage upstream, so the others ask for it too.
 */
export function chatBody(model: string, mode: "json" | "stream"): string {
  const messages = [{ role: "user", content: "Hello" }];
  return JSON.stringify(
    mode === "stream" ? { model, stream: true, stream_options: { include_usage: true }, messages } : { model, messages },
  );
}

/** Filler text for a prompt of a given size: English-like words, so a tokenizer sees ordinary text. */
const FILLER = "The quick brown fox jumps over the lazy dog while the gateway counts every byte it forwards. ";

/**
 * chatBody with a user message of exactly `promptBytes` bytes (ASCII filler), json or stream: how the
 * gateway's cost grows with the request's size (size-bench.ts).
 */
export function chatBodyWithPrompt(model: string, mode: "json" | "stream", promptBytes: number): string {
  const content = FILLER.repeat(Math.ceil(promptBytes / FILLER.length)).slice(0, promptBytes);
  const messages = [{ role: "user", content }];
  return JSON.stringify(
    mode === "stream" ? { model, stream: true, stream_options: { include_usage: true }, messages } : { model, messages },
  );
}
