// A Responses stream from an upstream that speaks the Responses API itself:
// every event relayed as written, except the terminal response.completed (or
// response.incomplete), held back until the cost is known and then written
// with `cost` in its response.usage. After a failure the stream ends with an
// `error` event and response.failed, numbered after the last relayed event.
// Everything before the first output item (response.created, in_progress)
// waits and goes out with it: OpenAI's quota and overload pattern is created,
// in_progress, then `error`, and an answer nothing of which reached the client
// is retried on the next path and not billed.
import type { GatewayError } from "@gateway/proto";
import { HeldOpening } from "../held-opening";
import { streamFailed } from "../../errors";
import type { OpenAiChunk } from "../../providers/provider-adapter";
import type { SseEvent } from "../../upstream/sse-parser";
import { namedFrame, relayedFrame } from "../sse-frames";
import type { AnswerContext, StreamRenderer } from "../client-dialect";
import { failureFrames } from "./responses-errors";
import { nativeUsageWithCost, responsesUsage } from "./usage";

const TERMINAL = new Set(["response.completed", "response.incomplete"]);
const SNAPSHOTS = new Set(["response.created", "response.in_progress"]);

interface EventShape {
  type?: unknown;
  sequence_number?: unknown;
  response?: Record<string, unknown>;
}

export class ResponsesNativeStreamRenderer implements StreamRenderer {
  private held: { event: SseEvent; parsed: EventShape } | undefined;
  /** The last event's data, read only when a failure must be numbered after it (a relayed one's bytes). */
  private lastData: string | Buffer = "";
  /** The latest response snapshot (created / in_progress), for response.failed. */
  private response: Record<string, unknown> | undefined;
  private readonly opening: HeldOpening;

  constructor(maxHeldLength?: number) {
    this.opening = new HeldOpening(maxHeldLength);
  }

  /** A text delta relayed as its bytes: held with the opening until the first output item, as `frames` holds it. */
  relayed(data: Buffer, frame: Buffer): string | undefined {
    this.lastData = data;
    if (!this.opening.holding) return "";
    this.opening.hold(frame.toString());
    return undefined;
  }

  // The codec's reader has parsed every event for the meter already: only the few events this
  // renderer must read (the snapshots, the terminal one) are parsed here again.
  frames(event: SseEvent | undefined, _chunks: readonly OpenAiChunk[]): string {
    if (!event) return ""; // the end of the body: no event to relay
    this.lastData = event.data;
    // OpenAI names every event by its type; an unnamed one is read for it.
    const type = event.event === "message" ? String(parseEvent(event.data).type) : event.event;
    if (SNAPSHOTS.has(type)) this.response = parseEvent(event.data).response ?? this.response;
    if (TERMINAL.has(type)) {
      this.held = { event, parsed: parseEvent(event.data) };
      return "";
    }
    if (this.opening.holding && type !== "response.output_item.added") {
      this.opening.hold(relayedFrame(event));
      return "";
    }
    return this.opening.release() + relayedFrame(event);
  }

  finish(context: AnswerContext, failure: GatewayError | undefined): string {
    // Without a failure the engine has seen the terminal event; a stream without one ended early all the same.
    if (failure || !this.held) {
      const response = { ...(this.response ?? {}), usage: responsesUsage(context) };
      const last = parseEvent(this.lastData.toString()).sequence_number;
      return this.opening.release() + failureFrames(failure ?? streamFailed(), typeof last === "number" ? last + 1 : 0, response);
    }
    const { event, parsed } = this.held;
    const response = parsed.response!;
    response.usage = nativeUsageWithCost(response.usage, context);
    return this.opening.release() + namedFrame(event.event === "message" ? String(parsed.type) : event.event, parsed);
  }
}

/** An event's JSON, or {} when it is not an object (relayed as it came all the same). */
function parseEvent(data: string): EventShape {
  try {
    const parsed: unknown = JSON.parse(data);
    return typeof parsed === "object" && parsed !== null ? (parsed as EventShape) : {};
  } catch {
    return {};
  }
}
