// The OpenRouter recordings the OpenAI persona adds when it answers as OpenRouter.
import type { FixtureReader } from "./fixture-files";
import { isRecord, type Json } from "./json";
import { deepFreeze } from "./fixture-files";
import { parseTranscript } from "./sse";

// The recording's base64 was elided by its author (undecodable), so a small valid PNG (4x4, RGB) stands in.
const MOCK_PNG_BASE64 =
  "iVBORw0KGgoAAAANSUhEUgAAAAQAAAAECAIAAAAmkwkpAAAAKklEQVR42g3JQREAAAyDsEqrtErDGduPCzGxcZGv1NZV3jI7N/kbLA7hAJCiG/EFJItoAAAAAElFTkSuQmCC";
const MOCK_PNG_DATA_URL = `data:image/png;base64,${MOCK_PNG_BASE64}`;

export interface OpenRouterFixtures {
  /** openrouter.chat.image.response.json with its elided (undecodable) data URL replaced by a small valid PNG. */
  imageResponse: Json;
  /** The documented mid-stream error chunk (top-level error, finish_reason "error"). */
  midStreamError: Json;
  /** Error body per HTTP status, from the examples of OpenRouter's API reference (403: the plain "insufficient-permissions" one). */
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
