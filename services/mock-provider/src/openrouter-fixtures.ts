// The OpenRouter recordings the OpenAI persona adds when it answers as OpenRouter.
import type { FixtureReader, Json } from "./fixture-files";
import { deepFreeze } from "./fixture-files";
import { MOCK_PNG_DATA_URL } from "./openrouter-images";
import { parseTranscript } from "./sse";
import { isRecord } from "./state";

export interface OpenRouterFixtures {
  /** openrouter.chat.image.response.json with its elided (undecodable) data URL replaced by a small valid PNG. */
  imageResponse: Json;
  /** The documented mid-stream error chunk (top-level error, finish_reason "error"). */
  midStreamError: Json;
  /** Error body per HTTP status, from the spec's examples (403: the plain "insufficient-permissions" one). */
  errorsByStatus: Readonly<Record<string, Json>>;
}

function withMockImage(response: Json): Json {
  const choices = (response.choices as Json[]).map((choice) => {
    const message = choice.message as Json;
    const images = (message.images as Json[]).map((image) => ({
      ...image,
      image_url: { ...(image.image_url as Json), url: MOCK_PNG_DATA_URL },
    }));
    return { ...choice, message: { ...message, images } };
  });
  return { ...response, choices };
}

export function loadOpenRouterFixtures({ text, json }: FixtureReader): OpenRouterFixtures {
  const [midStreamError] = parseTranscript(text("openrouter.chat.stream.midstream_error.sse"));
  if (!midStreamError) throw new Error("openrouter.chat.stream.midstream_error.sse must hold one event");
  const errorsByStatus: Record<string, Json> = {};
  for (const [status, example] of Object.entries(json("openrouter.errors.spec_examples.json"))) {
    if (!isRecord(example)) continue;
    // Statuses with several named examples hold them one level down.
    const body = isRecord(example.error)
      ? example
      : Object.values(example).find((named) => isRecord(named) && !("openrouter_metadata" in named));
    if (isRecord(body)) errorsByStatus[status] = body;
  }
  return deepFreeze({
    imageResponse: withMockImage(json("openrouter.chat.image.response.json")),
    midStreamError,
    errorsByStatus,
  });
}
