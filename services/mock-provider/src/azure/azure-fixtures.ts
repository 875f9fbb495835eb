// The Azure recordings the persona takes its content-filter verdicts from (the
// error bodies are loaded with every persona's, by fixtures.ts). Read once per
// process and frozen, as every fixture.
import { deepFreeze, fixtureReader } from "../fixture-files";
import { FIXTURES_DIR } from "../fixtures";
import type { Json } from "../json";
import { parseTranscript } from "../sse";

export interface AzureVerdicts {
  /** The stream's first event as recorded: no choices, empty id/model/object, the prompt's verdict. */
  announcement: Json;
  /** `prompt_filter_results` of a whole answer. */
  prompt: readonly Json[];
  /** A choice's `content_filter_results` for content that passed. */
  passed: Json;
  /** The same with the completion filtered (the recorded 400's categories: `sexual` filtered at medium). */
  filtered: Json;
}

let loaded: AzureVerdicts | undefined;

export function azureVerdicts(): AzureVerdicts {
  if (loaded) return loaded;
  const { json, text } = fixtureReader(FIXTURES_DIR);
  const response = json("azure.chat.response.json") as { prompt_filter_results: Json[]; choices: { content_filter_results: Json }[] };
  const events = parseTranscript(text("azure.chat.stream.sse"));
  const refusal = json("azure.error.400.content_filter.json") as { error: { innererror: { content_filter_result: Json } } };
  const { jailbreak: _prompt, ...completionCategories } = refusal.error.innererror.content_filter_result;
  loaded = deepFreeze({
    announcement: events[0]!,
    prompt: response.prompt_filter_results,
    passed: response.choices[0]!.content_filter_results,
    filtered: completionCategories,
  });
  return loaded;
}
