// A streamed chat answer in the OpenAI dialect: chunks as `data:` events in
// order, relayed byte for byte from an upstream that speaks the dialect. The
// usage-only chunk (`choices: []` with `usage`) is held back until its cost is
// known, so the last chunk before [DONE] always carries `usage.cost` equal to
// the ledger debit; an upstream that sent no such chunk gets one written for it.
// After a failure the stream ends with that chunk and one error event, no [DONE].
import type { GatewayError } from "@gateway/proto";
import type { OpenAiChunk } from "../../providers/provider-adapter";
import type { SseEvent } from "../../upstream/sse-parser";
import type { AnswerContext, StreamRenderer } from "../client-dialect";
import { openAiErrorFrame } from "./openai-errors";
import { usageWithCost } from "./usage-with-cost";

interface ChunkShape {
  id?: unknown;
  object?: unknown;
  created?: unknown;
  model?: unknown;
  service_tier?: unknown;
  system_fingerprint?: unknown;
  choices?: unknown;
  usage?: unknown;
}

export class ChatStreamRenderer implements StreamRenderer {
  /** The held-back usage-only chunk. */
  private usageOnly: ChunkShape | undefined;
  private lastChunk: ChunkShape | undefined;

  constructor(private readonly native: boolean) {}

  frames(event: SseEvent | undefined, chunks: readonly OpenAiChunk[]): string {
    let frames = "";
    for (const chunk of chunks as readonly ChunkShape[]) {
      this.lastChunk = chunk;
      if (chunk.usage !== undefined && chunk.usage !== null && !(Array.isArray(chunk.choices) && chunk.choices.length > 0)) {
        this.usageOnly = chunk;
        continue;
      }
      // A native upstream's event is one chunk: its own text goes out byte for byte.
      frames += `data: ${this.native && event ? event.data : JSON.stringify(chunk)}\n\n`;
    }
    return frames;
  }

  finish(context: AnswerContext, failure: GatewayError | undefined): string {
    const final: ChunkShape = this.usageOnly ?? {
      id: this.lastChunk?.id,
      object: "chat.completion.chunk",
      created: this.lastChunk?.created ?? Math.floor(Date.now() / 1000),
      model: this.lastChunk?.model ?? context.upstreamModel,
      // The answer's own, as every chunk before carried them.
      ...(this.lastChunk?.service_tier === undefined ? {} : { service_tier: this.lastChunk.service_tier }),
      ...(this.lastChunk?.system_fingerprint === undefined ? {} : { system_fingerprint: this.lastChunk.system_fingerprint }),
      choices: [],
    };
    final.usage = usageWithCost(context.usage, context.tokens, context.debitedNano);
    return `data: ${JSON.stringify(final)}\n\n${failure ? openAiErrorFrame(failure) : "data: [DONE]\n\n"}`;
  }
}
