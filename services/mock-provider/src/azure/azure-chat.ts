// Chat answers as Azure sends them: the OpenAI persona's recordings (chosen and
// scripted the same way) with Azure's content-filter verdicts added, keys in
// Azure's alphabetical order, streams opened by the verdict-only announcement
// chunk. The `content-filter-mid-stream` fault cuts the completion half-way
// with `finish_reason: "content_filter"`.
import type { Json } from "../json";
import type { AzureVerdicts } from "./azure-fixtures";

const sorted = (object: Json): Json => Object.fromEntries(Object.entries(object).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

const choicesOf = (answer: Json): Json[] => (Array.isArray(answer.choices) ? (answer.choices as Json[]) : []);

/** A whole chat answer with Azure's verdicts; `filtered`: the completion was cut by the content filter. */
export function azureChatResponse(answer: Json, verdicts: AzureVerdicts, filtered: boolean): Json {
  const choices = choicesOf(answer).map((choice) => {
    if (!filtered) return sorted({ ...choice, content_filter_results: verdicts.passed });
    const message = (choice.message ?? {}) as Json;
    const content =
      typeof message.content === "string" ? message.content.slice(0, Math.floor(message.content.length / 2)) : message.content;
    return sorted({
      ...choice,
      message: { ...message, content },
      finish_reason: "content_filter",
      content_filter_results: verdicts.filtered,
    });
  });
  return sorted({ ...answer, choices, prompt_filter_results: verdicts.prompt });
}

const hasContent = (choice: Json) => {
  const delta = (choice.delta ?? {}) as Json;
  return typeof delta.content === "string" && delta.content !== "";
};

/**
 * A stream's chunks as Azure sends them: the announcement first, then each chunk with a verdict per
 * choice (the recorded one on content, `{}` on the role and finish chunks); the usage chunk as it is.
 * `filtered`: after half the content chunks, a finish chunk with `content_filter` ends the choices.
 */
export function azureStreamChunks(chunks: readonly Json[], verdicts: AzureVerdicts, filtered: boolean): Json[] {
  const out: Json[] = [verdicts.announcement];
  const contentChunks = chunks.filter((chunk) => choicesOf(chunk).some(hasContent)).length;
  let contentSent = 0;
  for (const chunk of chunks) {
    const choices = choicesOf(chunk);
    if (choices.length === 0) {
      out.push(chunk);
      continue;
    }
    if (filtered && contentSent >= Math.max(1, Math.floor(contentChunks / 2))) {
      if (choices.some((choice) => choice.finish_reason != null)) {
        const stop = { content_filter_results: verdicts.filtered, delta: {}, finish_reason: "content_filter", index: 0, logprobs: null };
        out.push(sorted({ ...chunk, choices: [stop] }));
      }
      continue;
    }
    if (choices.some(hasContent)) contentSent++;
    out.push(
      sorted({
        ...chunk,
        choices: choices.map((choice) => sorted({ ...choice, content_filter_results: hasContent(choice) ? verdicts.passed : {} })),
      }),
    );
  }
  return out;
}
