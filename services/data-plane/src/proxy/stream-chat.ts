// Streamed chat completions. Upstream SSE events are parsed with the one
// parser and relayed as OpenAI chunks in order; the chunk that carries usage
// is held back until its cost is settled, so the last chunk before [DONE]
// always carries `usage.cost` equal to the ledger debit (decisions.md
// "Streaming"). After the first byte there is no retry: an upstream failure or
// idle cut ends the stream with one error event and no [DONE], billed for what
// was delivered; a client disconnect aborts the upstream.
import type { FastifyReply } from "fastify";
import type { ServerResponse } from "node:http";
import { estimateTokens } from "../billing/hold-estimate";
import type { Gateway } from "../gateway";
import { SseParser } from "../upstream/sse-parser";
import { releaseCall, settleCall } from "./call-money";
import { openUpstream, serviceHeaders } from "./open-upstream";
import type { PreparedCall } from "./prepare-call";
import { readUsage, usageWithCost } from "./usage";

interface ChunkShape {
  id?: unknown;
  created?: unknown;
  model?: unknown;
  choices?: { delta?: { content?: unknown; refusal?: unknown; tool_calls?: { function?: { name?: unknown; arguments?: unknown } }[] } }[];
  usage?: unknown;
  error?: unknown;
}

/** Text the client has received, to bill from when the upstream reports no usage. */
function deltaText(chunk: ChunkShape): string {
  let text = "";
  for (const choice of chunk.choices ?? []) {
    const delta = choice.delta;
    if (!delta) continue;
    if (typeof delta.content === "string") text += delta.content;
    if (typeof delta.refusal === "string") text += delta.refusal;
    for (const call of delta.tool_calls ?? []) {
      if (typeof call.function?.name === "string") text += call.function.name;
      if (typeof call.function?.arguments === "string") text += call.function.arguments;
    }
  }
  return text;
}

function writeEvent(raw: ServerResponse, data: string): Promise<void> {
  if (raw.destroyed || raw.writableEnded) return Promise.resolve();
  if (raw.write(`data: ${data}\n\n`)) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      raw.off("drain", done);
      raw.off("close", done);
      resolve();
    };
    raw.on("drain", done);
    raw.on("close", done);
  });
}

export async function streamChat(gateway: Gateway, call: PreparedCall, reply: FastifyReply, clientGone: AbortSignal, reason: () => string): Promise<void> {
  const response = await openUpstream(gateway, call, clientGone);

  // From here on the response is ours to write; errors can no longer become a JSON error body.
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(200, {
    ...(reply.getHeaders() as Record<string, string>), // rate-limit headers set before the handler
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache",
    connection: "keep-alive",
    ...serviceHeaders(call, reason()),
  });

  const parser = new SseParser();
  let delivered = "";
  let usageChunk: ChunkShape | undefined;
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
        if (chunk.choices?.some((choice) => typeof (choice as { finish_reason?: unknown }).finish_reason === "string")) finished = true;
        if (chunk.usage !== undefined && chunk.usage !== null) {
          usageChunk = chunk;
          continue;
        }
        delivered += deltaText(chunk);
        await writeEvent(raw, item.event.data);
      }
      if (failure) break;
    }
  } catch {
    failure = clientGone.aborted ? "client_closed" : "upstream_failed";
  }
  if (clientGone.aborted) failure = "client_closed";
  // An upstream that closed without finishing was cut, not done.
  if (!failure && !finished) failure = "upstream_failed";
  if (failure) response.body.destroy();

  // Bill: the upstream's usage when it came, otherwise what was delivered.
  const reported = usageChunk ? readUsage(usageChunk.usage) : undefined;
  const tokens = reported ?? { inputTokens: estimateTokens(call.payload), outputTokens: estimateTokens(delivered) };
  if (!reported && delivered === "" && failure) {
    // Nothing reached the client: nothing billable happened on our side.
    await releaseCall(gateway, call);
  } else {
    const debited = await settleCall(gateway, call, tokens);
    if (failure !== "client_closed") {
      const final: ChunkShape = usageChunk ?? {
        id: lastChunk?.id,
        object: "chat.completion.chunk",
        created: lastChunk?.created ?? Math.floor(Date.now() / 1000),
        model: lastChunk?.model ?? call.path.upstreamModel,
        choices: [],
      } as ChunkShape;
      final.usage = usageWithCost(usageChunk?.usage, tokens, debited);
      await writeEvent(raw, JSON.stringify(final));
    }
  }

  if (failure === "upstream_failed") {
    await writeEvent(raw, JSON.stringify({ error: { type: "upstream_error", code: 502, message: "The upstream provider failed during the stream." } }));
  } else if (!failure) {
    await writeEvent(raw, "[DONE]");
  }
  raw.end();
}
