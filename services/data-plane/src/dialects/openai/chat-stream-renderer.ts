// A streamed chat answer in the OpenAI dialect: chunks as `data:` events in
// order, relayed byte for byte from an upstream that speaks the dialect. The
// usage-only chunk (`choices: []` with `usage`) is held back until its cost is
// known, so the last chunk before [DONE] always carries `usage.cost` equal to
// the ledger debit; an upstream that sent no such chunk gets one written for it.
// After a failure the stream ends with that chunk and one error event, no [DONE].
// An upstream's own usage chunk gets its cost spliced into its bytes.
import type { GatewayError } from "@gateway/proto";
import type { OpenAiChunk } from "../../providers/provider-adapter";
import type { SseEvent } from "../../upstream/sse-parser";
import type { AnswerContext, StreamRenderer } from "../client-dialect";
import { openAiErrorFrame } from "./openai-errors";
import { usageWithCost } from "./usage-with-cost";
import { usdNumber } from "../../billing/pricing";
import { ChatJsonScan, DELTA } from "./chat-json-scan";
import { withUsageCost } from "./usage-cost-splice";

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
  /** The held-back usage-only chunk, and its data as the upstream wrote it (a native upstream's). */
  private usageOnly: ChunkShape | undefined;
  private usageOnlyData: string | undefined;
  private lastChunk: ChunkShape | undefined;
  /** The last chunk, when it was relayed as bytes (parsed only if `finish` needs it). */
  private lastRelayed: Buffer | undefined;

  constructor(private readonly native: boolean) {}

  relayed(data: Buffer): string {
    this.lastRelayed = data;
    this.lastChunk = undefined;
    return "";
  }

  frames(event: SseEvent | undefined, chunks: readonly OpenAiChunk[]): string {
    let frames = "";
    for (const chunk of chunks as readonly ChunkShape[]) {
      this.lastChunk = chunk;
      this.lastRelayed = undefined;
      if (chunk.usage !== undefined && chunk.usage !== null && !(Array.isArray(chunk.choices) && chunk.choices.length > 0)) {
        this.usageOnly = chunk;
        this.usageOnlyData = this.native && event ? event.data : undefined;
        continue;
      }
      // A native upstream's event is one chunk: its own text goes out byte for byte.
      frames += `data: ${this.native && event ? event.data : JSON.stringify(chunk)}\n\n`;
    }
    return frames;
  }

  finish(context: AnswerContext, failure: GatewayError | undefined): string {
    return `data: ${this.usageChunk(context)}\n\n${failure ? openAiErrorFrame(failure) : "data: [DONE]\n\n"}`;
  }

  /** The usage chunk with `usage.cost`: a native upstream's own, completed in its bytes; else written. */
  private usageChunk(context: AnswerContext): string {
    const held = this.usageOnly;
    if (held && this.usageOnlyData !== undefined && held.usage === context.usage) {
      const bytes = Buffer.from(this.usageOnlyData);
      const scan = new ChatJsonScan();
      const spliced = scan.scan(bytes, 0, bytes.length, DELTA) ? withUsageCost(bytes, scan, usdNumber(context.debitedNano)) : undefined;
      if (spliced) return spliced.toString();
    }
    const last = this.lastChunk ?? (this.lastRelayed ? (JSON.parse(this.lastRelayed.toString()) as ChunkShape) : undefined);
    const final: ChunkShape = held ?? {
      id: last?.id,
      object: "chat.completion.chunk",
      created: last?.created ?? Math.floor(Date.now() / 1000),
      model: last?.model ?? context.upstreamModel,
      // The answer's own, as every chunk before carried them.
      ...(last?.service_tier === undefined ? {} : { service_tier: last.service_tier }),
      ...(last?.system_fingerprint === undefined ? {} : { system_fingerprint: last.system_fingerprint }),
      choices: [],
    };
    final.usage = usageWithCost(context.usage, context.tokens, context.debitedNano);
    return JSON.stringify(final);
  }
}
