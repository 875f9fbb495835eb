// Azure's content-filter verdicts ride on OpenAI's answer shape: top-level
// `prompt_filter_results`, per-choice `content_filter_results`, and, first in
// every stream, an announcement chunk with no choices and empty id, model and
// object that carries only the prompt's verdict. An OpenAI chat client on an
// Azure path gets them as Azure sent them (its dialect is Azure's own); a
// client whose answer is translated (Messages, Responses) has no place for
// them, so the translation never sees them.
import type { OpenAiChunk, StreamItem, StreamTranslator } from "../provider-adapter";
import type { SseEvent } from "../../upstream/sse-parser";

/** A chat answer or chunk without Azure's filter verdicts (a copy; the upstream's object is left as it came). */
export function withoutFilterResults(answer: Record<string, unknown>): Record<string, unknown> {
  const { prompt_filter_results: _prompt, ...rest } = answer;
  if (Array.isArray(rest.choices)) {
    rest.choices = rest.choices.map((choice) => {
      if (typeof choice !== "object" || choice === null || !("content_filter_results" in choice)) return choice;
      const { content_filter_results: _choice, ...kept } = choice as Record<string, unknown>;
      return kept;
    });
  }
  return rest;
}

/** A chunk that carries nothing a translated answer can use: no choices and no usage (Azure's prompt-filter announcement). */
export function isVerdictOnly(chunk: OpenAiChunk): boolean {
  const noChoices = !Array.isArray(chunk.choices) || chunk.choices.length === 0;
  return noChoices && (chunk.usage === undefined || chunk.usage === null);
}

/**
 * The OpenAI translation of an Azure stream for a translated client: the announcement chunk is
 * dropped (its empty id and model, and `created: 0`, must not become the answer's), the verdicts
 * are removed from the other chunks; usage, `done` and errors pass as the OpenAI translator reads them.
 */
export class VerdictFreeStream implements StreamTranslator {
  constructor(private readonly openai: StreamTranslator) {}

  push(event: SseEvent): StreamItem[] {
    return this.openai.push(event).flatMap(withoutVerdicts);
  }

  end(): StreamItem[] {
    return this.openai.end().flatMap(withoutVerdicts);
  }
}

function withoutVerdicts(item: StreamItem): StreamItem[] {
  if (item.kind !== "chunk") return [item];
  if (isVerdictOnly(item.chunk)) return [];
  return [{ ...item, chunk: withoutFilterResults(item.chunk) }];
}
