// Streamed chat completions. Upstream SSE events are parsed with the one
// parser and relayed as OpenAI chunks in order. The usage-only chunk
// (`choices: []` with `usage`) is held back until its cost is settled, so the
// last chunk before [DONE] always carries `usage.cost` equal to the ledger
// debit (decisions.md "Streaming"); a provider that sends no such chunk gets
// one written for it. After the first byte there is no retry: an upstream
// failure or idle cut ends the stream with one error event and no [DONE],
// billed for what was delivered. A client disconnect stops the relaying; the
// upstream is read on for a short drain to catch its usage, then aborted, and
// the request is billed from that usage or from what was delivered.
import type { FastifyReply } from "fastify";
import type { ServerResponse } from "node:http";
import { estimateTokens } from "../billing/hold-estimate";
import type { Gateway } from "../gateway";
import { SseParser } from "../upstream/sse-parser";
import type { ClientLink } from "../routes/client-link";
import { releaseCall, settleCall } from "./call-money";
import { openUpstream, serviceHeaders } from "./open-upstream";
import type { PreparedCall } from "./prepare-call";
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
const NON_CONTENT_KEYS = new Set(["role", "type", "id", "index"]);

/** Every produced string in a delta (content, refusal, reasoning, tool and function call parts, audio transcript...). */
function producedText(value: unknown): string {
  if (typeof value === "string") return value;
  if (Array.isArray(value)) return value.map(producedText).join("");
  if (typeof value !== "object" || value === null) return "";
  let text = "";
  for (const [key, inner] of Object.entries(value)) if (!NON_CONTENT_KEYS.has(key)) text += producedText(inner);
  return text;
}

/**
 * Writes one SSE event, respecting backpressure. A client that reads nothing
 * for `timeoutMs` is cut (its socket destroyed), so a stalled reader cannot
 * hold a request open beyond its hold's lifetime.
 */
function writeEvent(raw: ServerResponse, data: string, timeoutMs: number): Promise<void> {
  if (raw.destroyed || raw.writableEnded) return Promise.resolve();
  if (raw.write(`data: ${data}\n\n`)) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => raw.destroy(), timeoutMs);
    const done = () => {
      clearTimeout(timer);
      raw.off("drain", done);
      raw.off("close", done);
      resolve();
    };
    raw.on("drain", done);
    raw.on("close", done);
  });
}

export async function streamChat(gateway: Gateway, call: PreparedCall, reply: FastifyReply, client: ClientLink, reason: () => string): Promise<void> {
  const response = await openUpstream(gateway, call, client);
  const writeTimeoutMs = gateway.config.upstream.streamIdleTimeoutMs;

  // From here on the response is ours to write; errors can no longer become a JSON error body.
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(200, {
    ...(reply.getHeaders() as Record<string, string>), // request id and rate-limit headers set before the handler
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache",
    connection: "keep-alive",
    ...serviceHeaders(call, reason()),
  });

  const parser = new SseParser();
  let delivered = "";
  let usageOnly: ChunkShape | undefined; // the held-back usage-only chunk
  let lastUsage: unknown; // the latest usage any chunk reported
  let lastChunk: ChunkShape | undefined;
  let failure: "client_closed" | "upstream_failed" | undefined;
  let finished = false; // [DONE] or a finish_reason arrived

  try {
    for await (const bytes of response.body) {
      for (const item of parser.push(bytes as Buffer)) {
        if (item.kind !== "event") continue;
        if (item.event.data === "[DONE]") {
          finished = true;
          continue;
        }
        let chunk: ChunkShape;
        try {
          chunk = JSON.parse(item.event.data) as ChunkShape;
        } catch {
          continue; // a malformed event carries nothing we can relay faithfully
        }
        if (chunk.error !== undefined) {
          failure = "upstream_failed";
          break;
        }
        lastChunk = chunk;
        const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
        if (choices.some((choice) => typeof choice.finish_reason === "string")) finished = true;
        if (chunk.usage !== undefined && chunk.usage !== null) {
          lastUsage = chunk.usage;
          if (client.gone.aborted) break; // draining after a disconnect: the usage is what we waited for
          if (choices.length === 0) {
            usageOnly = chunk;
            continue;
          }
        }
        if (client.gone.aborted) continue; // draining: nothing more reaches the client
        for (const choice of choices) delivered += producedText(choice.delta);
        await writeEvent(raw, item.event.data, writeTimeoutMs);
      }
      if (failure || (client.gone.aborted && lastUsage !== undefined)) break;
    }
  } catch {
    failure = client.gone.aborted ? "client_closed" : "upstream_failed";
  }
  if (client.gone.aborted || raw.destroyed) failure = "client_closed";
  // An upstream that closed without finishing was cut, not done.
  if (!failure && !finished) failure = "upstream_failed";
  if (failure) response.body.destroy();

  // Bill: the upstream's usage when it came, otherwise what was delivered.
  const reported = readUsage(lastUsage);
  const tokens = reported ?? { inputTokens: estimateTokens(call.payload), outputTokens: estimateTokens(delivered) };
  if (!reported && delivered === "" && failure === "upstream_failed") {
    // The upstream failed before anything reached the client: nothing billable happened.
    await releaseCall(gateway, call);
  } else {
    const debited = await settleCall(gateway, call, tokens);
    if (failure !== "client_closed") {
      const final: ChunkShape = usageOnly ?? {
        id: lastChunk?.id,
        object: "chat.completion.chunk",
        created: lastChunk?.created ?? Math.floor(Date.now() / 1000),
        model: lastChunk?.model ?? call.path.upstreamModel,
        choices: [],
      };
      final.usage = usageWithCost(lastUsage, tokens, debited);
      await writeEvent(raw, JSON.stringify(final), writeTimeoutMs);
    }
  }

  if (failure === "upstream_failed") {
    await writeEvent(raw, JSON.stringify({ error: { type: "upstream_error", code: 502, message: "The upstream provider failed during the stream." } }), writeTimeoutMs);
  } else if (!failure) {
    await writeEvent(raw, "[DONE]", writeTimeoutMs);
  }
  raw.end();
}
