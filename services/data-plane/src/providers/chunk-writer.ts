// The OpenAI `chat.completion.chunk`s a translating stream writes (Anthropic's events, Converse's):
// each with the answer's envelope as OpenAI's chunks carry it, the assistant role on the first chunk
// after the upstream's start (not before: a stream that has sent the client nothing can still be
// retried elsewhere), one finish, and the usage-only chunk with the record it was written from.
import type { UsageRecord } from "../billing/pricing";
import type { OpenAiFinishReason } from "./anthropic/map-anthropic-stop-reason";
import { chatUsage, type JsonObject } from "./chat-usage";
import { answerFields, openingDelta } from "./openai-answer-fields";
import type { ResponseContext, StreamItem } from "./provider-adapter";

export class ChunkWriter {
  /** The upstream's start came: the next chunk carries the assistant role. */
  rolePending = false;
  /** The chunk with the finish_reason went out. */
  finishSent = false;
  /** The answer's id and model: the context's until the upstream names its own. */
  id: string;
  model: string;

  constructor(
    private readonly context: ResponseContext,
    /** Whose answer fields a chunk carries (openai-answer-fields.ts). */
    private readonly upstream: string,
  ) {
    this.id = context.id;
    this.model = context.model;
  }

  chunk(delta: JsonObject, finishReason: OpenAiFinishReason | null = null): StreamItem {
    if (this.rolePending) {
      this.rolePending = false;
      delta = { ...openingDelta(), ...delta };
    }
    return { kind: "chunk", chunk: { ...this.envelope(), choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }] } };
  }

  finish(finishReason: OpenAiFinishReason, delta: JsonObject = {}): StreamItem {
    this.finishSent = true;
    return this.chunk(delta, finishReason);
  }

  /** The usage-only chunk (choices: []), and the record the meter bills. */
  usage(record: UsageRecord): StreamItem {
    return { kind: "chunk", chunk: { ...this.envelope(), choices: [], usage: chatUsage(record) }, usage: record };
  }

  /** What every chunk carries before its choices, as OpenAI's chunks do. */
  private envelope(): JsonObject {
    return {
      id: this.id,
      object: "chat.completion.chunk",
      created: this.context.created,
      model: this.model,
      ...answerFields(this.upstream, this.model),
    };
  }
}
