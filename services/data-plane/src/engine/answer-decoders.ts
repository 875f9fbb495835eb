// Upstream bytes -> translated items, one decoder per answer form. A streamed
// answer is parsed with the one SSE parser and translated event by event; a
// whole answer is read to its end and translated once. Both yield items in
// groups, one group per upstream event.
import type { Endpoint, ProviderAdapter, ResponseContext, StreamItem, StreamTranslator } from "../providers/provider-adapter";
import { SseParser } from "../upstream/sse-parser";

/** A whole answer: translated into the shared representation, and as the upstream wrote it (for a dialect that is its own). */
export type AnswerItem = StreamItem | { kind: "answer"; answer: Record<string, unknown>; raw: Record<string, unknown> };

export interface AnswerDecoder {
  /** The attempt's outcome when it breaks before anything reached the client. */
  readonly brokenOutcome: string;
  /** Bytes in; the items of each upstream event they complete. */
  push(bytes: Buffer): AnswerItem[][];
  /** The body ended without a transport error: the last items. */
  end(): AnswerItem[][];
}

const NO_GROUPS: AnswerItem[][] = [];
/** Strips a byte-order mark, as undici's body.json() does. */
const UTF8 = new TextDecoder();

export class StreamDecoder implements AnswerDecoder {
  readonly brokenOutcome = "stream_failed";
  private readonly parser = new SseParser();

  constructor(private readonly translator: StreamTranslator) {}

  push(bytes: Buffer): AnswerItem[][] {
    const groups: AnswerItem[][] = [];
    // Comments (keep-alives) are not events: they reach neither the translator nor the idle limit.
    for (const item of this.parser.push(bytes)) if (item.kind === "event") groups.push(this.translator.push(item.event));
    return groups;
  }

  end(): AnswerItem[][] {
    return [this.translator.end()];
  }
}

export class WholeDecoder implements AnswerDecoder {
  readonly brokenOutcome = "body_unreadable";
  private readonly chunks: Buffer[] = [];

  constructor(
    private readonly adapter: ProviderAdapter,
    private readonly endpoint: Endpoint,
    private readonly context: ResponseContext,
  ) {}

  push(bytes: Buffer): AnswerItem[][] {
    this.chunks.push(bytes);
    return NO_GROUPS;
  }

  /** A 200 body that is not an answer the adapter can read (cut, not JSON, an error) is never relayed. */
  end(): AnswerItem[][] {
    let raw: Record<string, unknown>;
    let answer: Record<string, unknown>;
    try {
      raw = JSON.parse(UTF8.decode(Buffer.concat(this.chunks)));
      answer = this.adapter.response(this.endpoint, raw, this.context);
    } catch {
      return [[{ kind: "error" }]];
    }
    return [[{ kind: "answer", answer, raw }, { kind: "done" }]];
  }
}
