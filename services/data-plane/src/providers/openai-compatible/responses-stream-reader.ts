// A Responses API event stream read into chat chunks, for the usage meter:
// text, reasoning summary and refusal deltas as content deltas, function calls
// as tool_call deltas, the usage of `response.completed` (or
// `response.incomplete`) read into the usage record, and in the shared shape on
// the last chunk. The events themselves are relayed.
import type { SseEvent } from "../../upstream/sse-parser";
import type { OpenAiChunk, StreamItem, StreamTranslator } from "../provider-adapter";
import { classifyUpstreamError } from "./classify-error";
import { finishReason } from "./read-responses-answer";
import { chatUsage } from "../chat-usage";
import { readResponsesUsage } from "./responses-usage";
import { malformedEvent } from "../malformed-event";

interface ResponsesEvent {
  type?: unknown;
  delta?: unknown;
  output_index?: unknown;
  item?: { type?: unknown; call_id?: unknown; name?: unknown; arguments?: unknown };
  response?: {
    id?: unknown;
    created_at?: unknown;
    model?: unknown;
    status?: unknown;
    incomplete_details?: unknown;
    usage?: unknown;
    service_tier?: unknown;
    error?: unknown;
  };
  error?: unknown;
}

export class ResponsesStreamReader implements StreamTranslator {
  /** Tool-call index by output index, in the order the calls started. */
  private readonly toolIndex = new Map<unknown, number>();
  private id: unknown;
  private created: unknown;
  private model: unknown;

  push(event: SseEvent): StreamItem[] {
    let parsed: ResponsesEvent;
    try {
      parsed = JSON.parse(event.data);
    } catch {
      return [malformedEvent(event)];
    }
    if (typeof parsed !== "object" || parsed === null) return [malformedEvent(event)];
    const type = typeof parsed.type === "string" ? parsed.type : event.event;
    switch (type) {
      case "error":
        return [{ kind: "error", category: classifyUpstreamError(parsed) }];
      case "response.failed":
        return [{ kind: "error", category: classifyUpstreamError({ error: parsed.response?.error }) }];
      case "response.created":
        this.id = parsed.response?.id;
        this.created = parsed.response?.created_at;
        this.model = parsed.response?.model;
        return [];
      case "response.output_text.delta":
        return this.delta({ content: parsed.delta });
      case "response.refusal.delta":
        return this.delta({ refusal: parsed.delta });
      case "response.reasoning_summary_text.delta":
      case "response.reasoning_text.delta":
        return this.delta({ reasoning: parsed.delta });
      case "response.output_item.added": {
        if (parsed.item?.type !== "function_call") return [];
        const index = this.toolIndex.size;
        this.toolIndex.set(parsed.output_index, index);
        const { call_id, name } = parsed.item;
        const start = { index, id: call_id, type: "function", function: { name, arguments: parsed.item.arguments ?? "" } };
        return this.delta({ tool_calls: [start] });
      }
      case "response.function_call_arguments.delta": {
        const index = this.toolIndex.get(parsed.output_index);
        return index === undefined ? [] : this.delta({ tool_calls: [{ index, function: { arguments: parsed.delta } }] });
      }
      case "response.completed":
      case "response.incomplete": {
        const response = parsed.response ?? {};
        const usage = readResponsesUsage(response);
        const last = this.chunk([{ index: 0, delta: {}, finish_reason: finishReason(response, this.toolIndex.size > 0) }]);
        if (!usage) return [{ kind: "chunk", chunk: last }, { kind: "done" }];
        last.usage = chatUsage(usage);
        return [{ kind: "chunk", chunk: last, usage }, { kind: "done" }];
      }
      default:
        return [];
    }
  }

  end(): StreamItem[] {
    return [];
  }

  private delta(delta: Record<string, unknown>): StreamItem[] {
    return [{ kind: "chunk", chunk: this.chunk([{ index: 0, delta, finish_reason: null }]) }];
  }

  private chunk(choices: unknown[]): OpenAiChunk {
    return { id: this.id, object: "chat.completion.chunk", created: this.created, model: this.model, choices };
  }
}
