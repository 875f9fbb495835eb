// The Anthropic recordings the persona replays (see fixtures/README.md).
// Non-stream plain answers use the text-only reply recorded after a tool
// result: anthropic.messages.response.json was recorded for a json_schema
// request, so it answers those.
import type { FixtureReader } from "./fixture-files";
import type { Json } from "./json";
import { deepFreeze } from "./fixture-files";
import { parseAnthropicTranscript } from "./anthropic-sse";
import type { AnthropicEvent } from "./anthropic-sse";

/** Which recorded conversation answers a Messages request. */
export type AnthropicKind = "plain" | "tools" | "json_schema";

export interface AnthropicFixtures {
  messages: Record<AnthropicKind, Json>;
  streams: Record<AnthropicKind, readonly AnthropicEvent[]>;
  /** The count_tokens answer as recorded (`{"input_tokens": 14}`): the shape of every count. */
  countTokens: Json;
}

export function loadAnthropicFixtures({ text, json }: FixtureReader): AnthropicFixtures {
  const transcript = (name: string) => deepFreeze(parseAnthropicTranscript(text(name)));
  return {
    messages: {
      plain: json("anthropic.messages.tools.result.response.json"),
      tools: json("anthropic.messages.tools.response.json"),
      json_schema: json("anthropic.messages.response.json"),
    },
    streams: {
      plain: transcript("anthropic.messages.stream.sse"),
      tools: transcript("anthropic.messages.stream.tools.sse"),
      json_schema: transcript("anthropic.messages.stream.recorded.sse"),
    },
    countTokens: json("anthropic.messages.count_tokens.response.json"),
  };
}
