// A Gemini `streamGenerateContent?alt=sse` answer as OpenAI chunks. Each SSE
// event's data is a whole GenerateContentResponse holding only what is new:
// text pieces, whole function calls, whole images; the last one carries
// `finishReason`, and `usageMetadata` grows as it goes. Gemini sends no end
// marker, so the answer counts as complete only if a finishReason came.
import type { SseEvent } from "../../upstream/sse-parser";
import type { ResponseContext, StreamItem, StreamTranslator } from "../provider-adapter";
import { answerIds, imageEntry, readCandidateParts } from "./candidate-output";
import { classifyGeminiError } from "./classify-error";
import { mapFinishReason } from "./finish-reason";
import type { UsageRecord } from "../../billing/pricing";
import { chatUsage } from "../chat-usage";
import { readGeminiUsage } from "./usage";
import { isObject, type JsonObject } from "./wire-types";
import { malformedEvent } from "../malformed-event";
import { answerFields, openingDelta } from "../openai-answer-fields";

interface CandidateState {
  toolCalls: number;
  images: number;
}

export class GeminiStreamTranslator implements StreamTranslator {
  /** Fixed by the first event, so every chunk of the answer has the same id. */
  private ids: { id: string; callIdBase: string } | undefined;
  private model: string;
  private readonly candidates = new Map<number, CandidateState>();
  private usage: UsageRecord | undefined;
  private finished = false;

  constructor(private readonly context: ResponseContext) {
    this.model = context.model;
  }

  push(event: SseEvent): StreamItem[] {
    // An OpenAI-style end marker a relay may add: not Gemini's, and nothing of the answer.
    if (event.data === "[DONE]") return [];
    let json: unknown;
    try {
      json = JSON.parse(event.data);
    } catch {
      return [malformedEvent(event)];
    }
    if (!isObject(json)) return [malformedEvent(event)];
    // Gemini reports a failure after the 200 as a Google error envelope in the stream.
    if (json.error !== undefined && json.error !== null) return [{ kind: "error", category: classifyGeminiError(json) }];
    this.ids ??= answerIds(json, this.context.id);
    if (typeof json.modelVersion === "string" && json.modelVersion !== "") this.model = json.modelVersion;
    // Each event repeats the usage so far; the last one is complete.
    const usage = readGeminiUsage(json.usageMetadata);
    if (usage) this.usage = usage;

    const items: StreamItem[] = [];
    const candidates = Array.isArray(json.candidates) ? json.candidates.filter(isObject) : [];
    candidates.forEach((candidate, position) => {
      const index = typeof candidate.index === "number" ? candidate.index : position;
      const chunk = this.candidateChunk(index, candidate);
      if (chunk) items.push({ kind: "chunk", chunk });
    });
    if (candidates.length === 0 && isObject(json.promptFeedback) && typeof json.promptFeedback.blockReason === "string") {
      // A blocked prompt: no candidates, so the one choice is opened and closed by the filter, as in the whole-answer translation.
      this.finished = true;
      items.push({
        kind: "chunk",
        chunk: this.chunk([{ index: 0, delta: openingDelta(), finish_reason: "content_filter", logprobs: null }]),
      });
    }
    return items;
  }

  end(): StreamItem[] {
    // Without a finishReason the upstream stopped mid-answer: nothing is added, and the proxy treats the stream as cut.
    if (!this.finished) return [];
    const items: StreamItem[] = [];
    // OpenAI's `include_usage` shape: a last chunk with no choices, only usage (its item carries the record).
    if (this.usage) items.push({ kind: "chunk", chunk: { ...this.chunk([]), usage: chatUsage(this.usage) }, usage: this.usage });
    items.push({ kind: "done" });
    return items;
  }

  private candidateChunk(index: number, candidate: JsonObject): JsonObject | undefined {
    let state = this.candidates.get(index);
    const delta: JsonObject = state ? {} : openingDelta();
    if (!state) {
      state = { toolCalls: 0, images: 0 };
      this.candidates.set(index, state);
    }
    const output = readCandidateParts(candidate.content, this.ids?.callIdBase ?? this.context.id, state.toolCalls);
    if (output.content !== null) delta.content = output.content;
    if (output.reasoning !== null) delta.reasoning = output.reasoning;
    if (output.toolCalls.length > 0) {
      // Gemini sends each call whole: one delta per call, arguments complete.
      delta.tool_calls = output.toolCalls.map((call, offset) => ({
        index: state.toolCalls + offset,
        id: call.id,
        type: "function",
        function: { name: call.name, arguments: call.arguments },
      }));
      state.toolCalls += output.toolCalls.length;
    }
    if (output.images.length > 0) {
      delta.images = output.images.map((image, offset) => imageEntry(image, state.images + offset));
      state.images += output.images.length;
    }
    const reason = candidate.finishReason;
    const hasReason = typeof reason === "string" && reason !== "" && reason !== "FINISH_REASON_UNSPECIFIED";
    if (hasReason) this.finished = true;
    if (!hasReason && Object.keys(delta).length === 0) return undefined;
    const finishReason = hasReason ? mapFinishReason(reason, state.toolCalls > 0) : null;
    return this.chunk([{ index, delta, finish_reason: finishReason, logprobs: null }]);
  }

  private chunk(choices: JsonObject[]): JsonObject {
    return {
      id: this.ids?.id ?? this.context.id,
      object: "chat.completion.chunk",
      created: this.context.created,
      model: this.model,
      ...answerFields("gemini", this.model),
      choices,
    };
  }
}
