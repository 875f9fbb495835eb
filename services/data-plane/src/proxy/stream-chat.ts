// Streamed chat completions. Upstream SSE events are parsed with the one
// parser and relayed as OpenAI chunks in order. The usage-only chunk
// (`choices: []` with `usage`) is held back until its cost is settled, so the
// last chunk before [DONE] always carries `usage.cost` equal to the ledger
// debit (decisions.md "Streaming"); a provider that sends no such chunk gets
// one written for it. Until the first event reaches the client, a broken
// stream is a failed attempt like any other (retried, then the next path or
// model: upstream-attempts.ts). After it there is no retry: an upstream
// failure or idle cut ends the stream with one error event and no [DONE],
// billed for what was delivered. A client disconnect stops the relaying; the
// upstream is read on for a short drain to catch its usage, then aborted, and
// the request is billed from that usage or from what was delivered.
import type { FastifyReply } from "fastify";
import { countImages, estimateTokens } from "../billing/hold-estimate";
import { GatewayError } from "../errors";
import type { Gateway } from "../gateway";
import type { ClientLink } from "../routes/client-link";
import { SseParser } from "../upstream/sse-parser";
import type { UpstreamResponse } from "../upstream/upstream-http";
import type { StreamItem } from "../providers/provider-adapter";
import { releaseIfOpen, settleCall } from "./call-money";
import { responseContext, serviceHeaders, type PreparedCall } from "./prepare-call";
import { SseResponse } from "./sse-response";
import { UpstreamAttempts } from "./upstream-attempts";
import { readUsage, usageWithCost } from "./usage";

interface ChunkShape {
  id?: unknown;
  object?: unknown;
  created?: unknown;
  model?: unknown;
  choices?: { delta?: unknown; finish_reason?: unknown }[];
  usage?: unknown;
  error?: unknown;
}

/** Keys of a delta that carry no produced content. */
const NON_CONTENT_KEYS = new Set(["role", "type", "id", "index", "images"]); // images are billed per image, not as text

/** Every produced string in a delta (content, refusal, reasoning, tool and function call parts, audio transcript...). */
function producedText(value: unknown): string {
  if (typeof value === "string") return value;
  if (Array.isArray(value)) return value.map(producedText).join("");
  if (typeof value !== "object" || value === null) return "";
  let text = "";
  for (const key of Object.keys(value)) if (!NON_CONTENT_KEYS.has(key)) text += producedText((value as Record<string, unknown>)[key]);
  return text;
}

const STREAM_FAILED = { error: { type: "upstream_error", code: 502, message: "The upstream provider failed during the stream." } };

/**
 * Streams the call's answer. Attempts whose stream breaks before its first
 * event reached the client are retried like any transient failure (the client
 * has at most seen keep-alive comments).
 */
export async function streamChat(
  gateway: Gateway,
  call: PreparedCall,
  reply: FastifyReply,
  client: ClientLink,
  reason: () => string,
): Promise<void> {
  const { config } = gateway;
  const sse = new SseResponse(reply, config.sseKeepAliveMs, config.upstream.streamIdleTimeoutMs, () => serviceHeaders(call, reason()));
  const attempts = new UpstreamAttempts(gateway, call, client);
  try {
    for (;;) {
      const response = await attempts.open();
      if ((await relay(gateway, call, response, sse, client, attempts)) === "relayed") break;
    }
    sse.end();
  } catch (error) {
    if (!(error instanceof GatewayError)) await releaseIfOpen(gateway, call);
    if (!sse.committed) {
      sse.stop();
      throw error; // the app's error handler answers with the status and JSON body
    }
    // Headers went out with a keep-alive comment: the failure can only be an event.
    if (!(error instanceof GatewayError) || error.status !== 499) {
      await sse.event(JSON.stringify(error instanceof GatewayError ? error.toBody() : STREAM_FAILED));
    }
    sse.end();
  }
}

/**
 * Relays one upstream stream. "retry" when it broke before its first event
 * reached the client (nothing billed; the attempt is recorded as failed).
 */
async function relay(
  gateway: Gateway,
  call: PreparedCall,
  response: UpstreamResponse,
  sse: SseResponse,
  client: ClientLink,
  attempts: UpstreamAttempts,
): Promise<"relayed" | "retry"> {
  const parser = new SseParser();
  let delivered = "";
  let images = 0; // images delivered, for paths priced per image
  let relayedAny = false; // an event reached the client: no retry from here on
  let usageOnly: ChunkShape | undefined; // the held-back usage-only chunk
  let lastUsage: unknown; // the latest usage any chunk reported
  let lastChunk: ChunkShape | undefined;
  let failure: "client_closed" | "upstream_failed" | undefined;
  let finished = false; // the adapter said the answer is complete ([DONE], message_stop, a Gemini finish at the body's end)

  const translator = call.target.provider.adapter.stream(responseContext(call));
  /** Adds translated items to the answer, in order; true when reading should stop. */
  const handle = (items: StreamItem[]): boolean => {
    for (const item of items) {
      if (item.kind === "error") {
        failure = "upstream_failed";
        return true;
      }
      if (item.kind === "done") {
        finished = true;
        continue;
      }
      const chunk = item.chunk as ChunkShape;
      lastChunk = chunk;
      const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
      if (chunk.usage !== undefined && chunk.usage !== null) {
        lastUsage = chunk.usage;
        if (client.gone) return true; // draining after a disconnect: the usage is what we waited for
        if (choices.length === 0) {
          usageOnly = chunk;
          continue;
        }
      }
      if (client.gone) continue; // draining: nothing more reaches the client
      for (const choice of choices) {
        delivered += producedText(choice.delta);
        images += countImages(choice.delta);
      }
      relayedAny = true;
      sse.add(item.raw ?? JSON.stringify(chunk));
    }
    return false;
  };

  // The idle limit counts events, not bytes: undici's body timeout is reset by
  // anything, and an upstream sending only comments (OpenRouter's keep-alive)
  // must still be cut after STREAM_IDLE_TIMEOUT_MS without a chunk.
  const idle = setTimeout(
    () => response.body.destroy(new Error("no event within the stream idle limit")),
    gateway.config.upstream.streamIdleTimeoutMs,
  );
  let firstEvent = false;
  let firstWritten = false;
  try {
    let stopped = false;
    for await (const bytes of response.body) {
      for (const item of parser.push(bytes as Buffer)) {
        if (item.kind !== "event") continue;
        idle.refresh();
        if (!firstEvent) {
          firstEvent = true;
          gateway.metrics.upstreamFirstEvent.series(call.target.path.provider).observe((performance.now() - attempts.sentAt) / 1000);
        }
        if (handle(translator.push(item.event))) {
          stopped = true;
          break;
        }
        if (!firstWritten && (delivered !== "" || images > 0)) {
          // The first token goes out at once (with the chunks before it), not after the rest of its read.
          firstWritten = true;
          const drained = sse.flush();
          if (drained) await drained;
        }
      }
      // The other events of this read go out in one write, before the next read.
      const drained = sse.flush();
      if (drained) await drained;
      if (stopped) break;
    }
    if (!stopped) {
      handle(translator.end());
      await sse.flush();
    }
  } catch {
    failure = client.gone ? "client_closed" : "upstream_failed";
  } finally {
    clearTimeout(idle);
  }
  if (client.gone || sse.destroyed) failure = "client_closed";
  // An upstream that closed without finishing was cut, not done.
  if (!failure && !finished) failure = "upstream_failed";
  if (failure) response.body.destroy();

  if (failure === "upstream_failed" && !relayedAny) {
    // Nothing reached the client: a transient failure of this attempt; the next one may answer.
    attempts.failedBeforeFirstByte("stream_failed");
    return "retry";
  }
  if (failure === "upstream_failed") attempts.failedAfterFirstByte("stream_failed");
  else if (!failure) attempts.answered(); // a client that left says nothing about the path

  // Bill: the upstream's usage when it came, otherwise what was delivered.
  const reported = readUsage(lastUsage);
  const tokens = {
    ...(reported ?? { inputTokens: estimateTokens(call.target.upstream.body), outputTokens: estimateTokens(delivered) }),
    images,
  };
  const debited = await settleCall(gateway, call, tokens);
  if (failure !== "client_closed") {
    const final: ChunkShape = usageOnly ?? {
      id: lastChunk?.id,
      object: "chat.completion.chunk",
      created: lastChunk?.created ?? Math.floor(Date.now() / 1000),
      model: lastChunk?.model ?? call.target.path.upstreamModel,
      choices: [],
    };
    final.usage = usageWithCost(lastUsage, tokens, debited);
    sse.add(JSON.stringify(final));
  }
  if (failure === "upstream_failed") sse.add(JSON.stringify(STREAM_FAILED));
  else if (!failure) sse.add("[DONE]");
  await sse.flush();
  return "relayed";
}
