// InvokeModelWithResponseStream for Claude: AWS event-stream `chunk` messages
// whose payload `{"bytes":"<base64>"}` holds one Anthropic Messages stream
// event (message_start, content_block_delta, ..., message_stop with Bedrock's
// `amazon-bedrock-invocationMetrics`). Each is decoded and handed to the
// Anthropic stream translator as the SSE event Anthropic itself would send
// (`unwrap`: a client that speaks Messages natively is relayed that event too,
// not the `chunk` envelope); exception frames end the answer as errors.
import type { SseEvent } from "../../upstream/sse-parser";
import { AnthropicStreamTranslator } from "../anthropic/anthropic-stream-translator";
import { isRecord } from "../chat-usage";
import { malformedEvent } from "../malformed-event";
import type { ResponseContext, StreamItem, StreamTranslator } from "../provider-adapter";
import { streamFailure } from "./bedrock-stream-exception";

export class InvokeAnthropicStreamTranslator implements StreamTranslator {
  readonly framing = "aws-eventstream";
  private readonly anthropic: AnthropicStreamTranslator;
  private over = false;

  constructor(context: ResponseContext) {
    this.anthropic = new AnthropicStreamTranslator(context);
  }

  push(event: SseEvent): StreamItem[] {
    if (this.over) return [];
    const failure = streamFailure(event);
    if (failure) {
      this.over = true;
      return [failure];
    }
    // A chunk unwrap() could not read; any other event is the Anthropic event unwrapped (or one it ignores).
    if (event.event === "chunk") return [malformedEvent(event)];
    return this.anthropic.push(event);
  }

  /** A `chunk` message as the Anthropic event inside it; undefined for anything else (or a chunk that holds none). */
  unwrap(event: SseEvent): SseEvent | undefined {
    if (event.event !== "chunk") return undefined;
    const inner = innerEvent(event.data);
    return inner ? { event: inner.event, data: inner.data, id: undefined } : undefined;
  }

  end(): StreamItem[] {
    return this.anthropic.end();
  }
}

/** The Anthropic event inside a chunk payload, named by its `type`; undefined when the payload is not one. */
export function innerEvent(payload: string): { event: string; data: string } | undefined {
  let outer: unknown;
  try {
    outer = JSON.parse(payload);
  } catch {
    return undefined;
  }
  if (!isRecord(outer) || typeof outer.bytes !== "string") return undefined;
  const data = Buffer.from(outer.bytes, "base64").toString("utf8");
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    return undefined;
  }
  return isRecord(parsed) && typeof parsed.type === "string" && parsed.type !== "" ? { event: parsed.type, data } : undefined;
}
