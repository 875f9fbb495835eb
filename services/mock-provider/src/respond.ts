// Sending responses, deliberately broken ones included. Everything that writes
// to the socket lives here so the client-went-away rules are in one place:
// never write after the client left, never leave a timer running for it, and
// never let a socket error escape as an unhandled exception. What differs per
// vendor (error envelopes, stream framing) comes in as a Wire / StreamFraming.
import { setTimeout as sleep } from "node:timers/promises";
import type { ServerResponse } from "node:http";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Json } from "./json";
import { scriptStatus } from "./scripts";
import type { Fault, Persona, RecordedRequest, Script } from "./types";
import { errorEventAfter } from "./wire";
import type { StreamFraming, Wire } from "./wire";

/** One request in flight: its log entry, the persona answering it and the script that governs the answer. */
export interface Exchange {
  request: FastifyRequest;
  reply: FastifyReply;
  entry: RecordedRequest;
  persona: Persona;
  wire: Wire;
  script: Script | undefined;
  requestId: string;
  errorFixtures: Readonly<Record<string, Json>>;
  /** The recorded Anthropic `event: error` frame (fault anthropic-error-event-mid-stream). */
  anthropicErrorEvent: string;
}

const clientGone = new WeakMap<ServerResponse, AbortController>();

/** Aborts when the client disconnects before the response finished. */
function goneSignal(res: ServerResponse): AbortSignal {
  let controller = clientGone.get(res);
  if (!controller) {
    const created = new AbortController();
    controller = created;
    clientGone.set(res, created);
    res.once("close", () => {
      if (!res.writableFinished) created.abort();
    });
    // Writes racing a disconnect surface as 'error' on the response; they are expected.
    res.on("error", () => {});
  }
  return controller.signal;
}

/** Waits `ms`; false when the client left meanwhile (the timer is cancelled with it). */
async function wait(res: ServerResponse, ms: number | undefined): Promise<boolean> {
  const signal = goneSignal(res);
  if (signal.aborted) return false;
  if (!ms) return true;
  try {
    await sleep(ms, undefined, { signal });
    return true;
  } catch {
    return false;
  }
}

function isOpen(res: ServerResponse): boolean {
  return !res.destroyed && !res.writableEnded && !goneSignal(res).aborted;
}

/**
 * Ends the connection after what was written so far is flushed, without the
 * response's terminating chunk (FIN after the flushed bytes): the client sees a
 * truncated body. A hard destroy could drop the buffered half before it is sent.
 */
function cutConnection(ex: Exchange): void {
  ex.request.raw.socket?.end();
}

function responseHeaders(ex: Exchange, contentType: string, status?: number): Record<string, string> {
  const headers: Record<string, string> = { "content-type": contentType };
  if (ex.wire.requestIdHeader) headers[ex.wire.requestIdHeader] = ex.requestId;
  if (status !== undefined && status >= 400) Object.assign(headers, ex.wire.errorHeaders?.(status));
  return { ...headers, ...ex.script?.headers };
}

function destroySocket(ex: Exchange): void {
  ex.reply.hijack();
  ex.request.raw.socket?.destroy();
}

/** A complete JSON response through fastify (the normal, fast path). */
export function sendJson(ex: Exchange, status: number, body: unknown, extraHeaders?: Record<string, string>): void {
  ex.entry.responseStatus = status;
  ex.entry.responseBody = body;
  ex.reply
    .code(status)
    .headers({ ...responseHeaders(ex, "application/json", status), ...extraHeaders })
    .send(JSON.stringify(body));
}

/**
 * A scripted error body, byte for byte as the script gave it (it may not even be
 * JSON). Logged parsed when it is JSON, as text otherwise, like other bodies.
 */
function sendErrorText(ex: Exchange, status: number, text: string): void {
  ex.entry.responseStatus = status;
  try {
    ex.entry.responseBody = JSON.parse(text);
  } catch {
    ex.entry.responseText = text;
  }
  ex.reply
    .code(status)
    .headers(responseHeaders(ex, "application/json", status))
    .send(text);
}

/**
 * What happens before any response header: scripted latency, reset-before-headers
 * and scripted error statuses. Returns false when the response is already settled.
 */
export async function beforeHeaders(ex: Exchange): Promise<boolean> {
  const script = ex.script;
  if (!(await wait(ex.reply.raw, script?.latencyMs))) {
    ex.reply.hijack();
    return false;
  }
  if (script?.fault === "reset-before-headers") {
    ex.entry.responseText = "";
    destroySocket(ex);
    return false;
  }
  const status = scriptStatus(script);
  if (status !== undefined && status >= 400) {
    if (script?.errorBody !== undefined) {
      sendErrorText(ex, status, script.errorBody);
      return false;
    }
    const fixture = script?.errorFixture ? ex.errorFixtures[script.errorFixture] : undefined;
    sendJson(ex, status, fixture ? ex.wire.fixtureBody(fixture, ex.requestId) : ex.wire.errorBody(status, ex.requestId));
    return false;
  }
  return true;
}

/** A successful JSON body, honouring the mid-body faults (truncate or stall half-way). */
export function sendSuccessJson(ex: Exchange, body: Json): void {
  const fault = ex.script?.fault;
  const status = ex.script?.status ?? 200;
  if (fault !== "reset-mid-stream" && fault !== "stall-mid-stream") {
    sendJson(ex, status, body);
    return;
  }
  const text = JSON.stringify(body);
  const half = text.slice(0, Math.floor(text.length / 2));
  const res = ex.reply.raw;
  ex.reply.hijack();
  // Content-Length promises the whole body, so the client must notice the truncation.
  res.writeHead(status, { ...responseHeaders(ex, "application/json"), "content-length": String(Buffer.byteLength(text)) });
  ex.entry.responseStatus = status;
  ex.entry.responseText = half;
  res.write(half);
  if (fault === "reset-mid-stream") cutConnection(ex);
  // stall-mid-stream: nothing more is written; the socket closes when the client gives up.
}

/**
 * Replays a stream frame by frame (each frame one complete event as it goes on
 * the wire), applying chunk delays and stream faults. "Half" counts the frames.
 */
export async function sendStream(ex: Exchange, frames: readonly string[], framing: StreamFraming): Promise<void> {
  const res = ex.reply.raw;
  const fault = ex.script?.fault;
  const status = ex.script?.status ?? 200;
  // At least one event goes out before a mid-stream fault.
  const half = Math.max(1, Math.floor(frames.length / 2));

  ex.reply.hijack();
  goneSignal(res);
  res.writeHead(status, {
    ...responseHeaders(ex, framing.contentType),
    "cache-control": "no-cache",
    connection: "keep-alive",
  });
  // Node holds the head until the first write; send it now so firstChunkDelayMs
  // delays the body only, as a slow upstream that already answered would.
  res.flushHeaders();
  ex.entry.responseStatus = status;
  ex.entry.responseText = "";

  const chunkDelay = ex.script?.chunkDelayMs;
  const send = async (text: string, delayMs: number | undefined): Promise<boolean> => {
    if (!(await wait(res, delayMs))) return false;
    if (!isOpen(res)) return false;
    ex.entry.responseText += text;
    res.write(text);
    return true;
  };

  if (framing.prelude !== undefined && !(await send(framing.prelude, undefined))) return;
  // i === frames.length is the end slot, so a fault still fires for a one-event stream.
  for (let i = 0; i <= frames.length; i++) {
    if (i === half) {
      if (fault === "reset-mid-stream") {
        cutConnection(ex);
        return;
      }
      if (fault === "stall-mid-stream") return; // keep the socket open; the client decides when to leave
      if (fault === "error-event-mid-stream" || fault === "anthropic-error-event-mid-stream") {
        // Same point and same ending for both; only the wire form differs (the persona's own, or Anthropic's).
        const event = fault === "error-event-mid-stream" ? errorEventAfter(framing, i) : ex.anthropicErrorEvent;
        if (await send(event, chunkDelay)) res.end();
        return;
      }
      if (fault === "malformed-sse" && !(await send(framing.malformedEvent, chunkDelay))) return;
    }
    const next = frames[i];
    if (next === undefined) break;
    if (!(await send(next, i === 0 ? ex.script?.firstChunkDelayMs : chunkDelay))) return;
  }
  if (framing.end === undefined) {
    if (isOpen(res)) res.end();
    return;
  }
  if (await send(framing.end, chunkDelay)) res.end();
}

/** How a binary stream (AWS event streams) is framed and broken: the binary twin of StreamFraming. */
export interface BinaryStreamFraming {
  contentType: string;
  /** The message a mid-stream error fault writes before the stream ends (undefined: the fault is not this stream's). */
  errorMessage(fault: Fault): Uint8Array | undefined;
  /** What `malformed-sse` writes half-way. */
  malformedMessage: Uint8Array;
}

/**
 * sendStream for binary messages, with the same pacing, faults and client-went-away rules.
 * The log keeps the bytes written as base64 in `responseText`.
 */
export async function sendBinaryStream(ex: Exchange, messages: readonly Uint8Array[], framing: BinaryStreamFraming): Promise<void> {
  const res = ex.reply.raw;
  const fault = ex.script?.fault;
  const status = ex.script?.status ?? 200;
  const half = Math.max(1, Math.floor(messages.length / 2));
  ex.reply.hijack();
  goneSignal(res);
  res.writeHead(status, { ...responseHeaders(ex, framing.contentType), connection: "keep-alive" });
  res.flushHeaders();
  ex.entry.responseStatus = status;
  const written: Uint8Array[] = [];
  const send = async (bytes: Uint8Array, delayMs: number | undefined): Promise<boolean> => {
    if (!(await wait(res, delayMs)) || !isOpen(res)) return false;
    written.push(bytes);
    ex.entry.responseText = Buffer.concat(written).toString("base64");
    res.write(bytes);
    return true;
  };
  const chunkDelay = ex.script?.chunkDelayMs;
  for (let i = 0; i <= messages.length; i++) {
    if (i === half && fault !== undefined) {
      if (fault === "reset-mid-stream") return cutConnection(ex);
      if (fault === "stall-mid-stream") return;
      const error = framing.errorMessage(fault);
      if (error !== undefined) {
        if (await send(error, chunkDelay)) res.end();
        return;
      }
      if (fault === "malformed-sse" && !(await send(framing.malformedMessage, chunkDelay))) return;
    }
    const next = messages[i];
    if (next === undefined) break;
    if (!(await send(next, i === 0 ? ex.script?.firstChunkDelayMs : chunkDelay))) return;
  }
  if (isOpen(res)) res.end();
}
