// A stream from an upstream that speaks Anthropic Messages itself: every event
// is relayed as written (`event: <name>\ndata: <its data>\n\n`), except two
// held back until the call is billed: `message_delta`, whose usage gets
// `cost` (and any cumulative count it lacks), and `message_stop`, written
// after it. After a failure the stream ends with that message_delta and one
// `event: error`, without message_stop. message_start (and a ping after it)
// also wait for the first content event: Anthropic's overload pattern is
// message_start then `event: error`, and an answer nothing of which reached
// the client can still be retried on another path.
import type { GatewayError } from "@gateway/proto";
import type { OpenAiChunk } from "../../providers/provider-adapter";
import type { SseEvent } from "../../upstream/sse-parser";
import { HeldOpening } from "../held-opening";
import { namedFrame, relayedFrame } from "../sse-frames";
import type { AnswerContext, StreamRenderer } from "../client-dialect";
import { anthropicErrorFrame } from "./anthropic-errors";
import { isRecord, type JsonObject } from "./json-fields";
import { completedUsage } from "./message-object";

export class MessagesNativeStreamRenderer implements StreamRenderer {
  private messageDelta: JsonObject | undefined;
  private stopFrame: string | undefined;
  private readonly opening: HeldOpening;

  constructor(maxHeldLength?: number) {
    this.opening = new HeldOpening(maxHeldLength);
  }

  /** A content event relayed as its bytes (a text or thinking delta): the held opening goes first. */
  relayed(): string {
    return this.opening.release();
  }

  frames(event: SseEvent | undefined, _chunks: readonly OpenAiChunk[]): string {
    if (!event) return ""; // the end of the body: no event to relay
    if (this.opening.holding && (event.event === "message_start" || event.event === "ping")) {
      this.opening.hold(relayedFrame(event));
      return "";
    }
    if (event.event === "message_delta") {
      this.messageDelta = parseObject(event.data) ?? { type: "message_delta", delta: { stop_reason: null, stop_sequence: null } };
      return "";
    }
    if (event.event === "message_stop") {
      this.stopFrame = relayedFrame(event);
      return "";
    }
    return this.opening.release() + relayedFrame(event);
  }

  finish(context: AnswerContext, failure: GatewayError | undefined): string {
    const delta = this.messageDelta ?? { type: "message_delta", delta: { stop_reason: null, stop_sequence: null } };
    delta.usage = completedUsage(delta.usage, context);
    const end = failure ? anthropicErrorFrame(failure) : (this.stopFrame ?? namedFrame("message_stop", { type: "message_stop" }));
    return this.opening.release() + namedFrame("message_delta", delta) + end;
  }
}

function parseObject(text: string): JsonObject | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    return isRecord(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}
