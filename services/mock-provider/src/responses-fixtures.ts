// The OpenAI Responses API recordings the persona replays (see fixtures/README.md).
// Streams keep every event's `data:` text as recorded, so events the mock does
// not rewrite go out byte for byte. Only two streams were recorded: text, and
// reasoning + function call; the json_schema and reasoning shapes stream as text.
import { parseAnthropicTranscript } from "./anthropic-sse";
import type { AnthropicEvent } from "./anthropic-sse";
import { deepFreeze } from "./fixture-files";
import type { FixtureReader } from "./fixture-files";
import type { Json } from "./json";

/** Which recorded answer a Responses request gets. */
export type ResponsesKind = "plain" | "tools" | "json_schema" | "reasoning";

/** One event of a Responses stream (`event: <type>` + `data: <json>`: the same framing as Anthropic's). */
export type ResponsesEvent = AnthropicEvent;

export interface ResponsesFixtures {
  responses: Record<ResponsesKind, Json>;
  streams: Record<ResponsesKind, readonly ResponsesEvent[]>;
  /** The recorded failure after HTTP 200: the `error` event and the `response.failed` event, parsed. */
  failure: { error: Json; failed: Json };
}

function checkSequence(name: string, events: readonly ResponsesEvent[]): void {
  events.forEach((event, index) => {
    const data = JSON.parse(event.data) as Json;
    if (data.type !== event.event || data.sequence_number !== index) {
      throw new Error(`${name}: event ${index} must be ${String(data.type)} with sequence_number ${index}`);
    }
  });
}

export function loadResponsesFixtures({ text, json }: FixtureReader): ResponsesFixtures {
  const transcript = (name: string) => {
    const events = parseAnthropicTranscript(text(name));
    checkSequence(name, events);
    return deepFreeze(events);
  };
  const textStream = transcript("openai.responses.stream.sse");
  const recordedFailure = parseAnthropicTranscript(text("openai.responses.stream.error.sse"));
  const payload = (type: string): Json => {
    const event = recordedFailure.find((candidate) => candidate.event === type);
    if (!event) throw new Error(`openai.responses.stream.error.sse must contain a ${type} event`);
    return JSON.parse(event.data) as Json;
  };
  return {
    responses: {
      plain: json("openai.responses.response.json"),
      tools: json("openai.responses.tools.response.json"),
      json_schema: json("openai.responses.json_schema.response.json"),
      reasoning: json("openai.responses.reasoning.response.json"),
    },
    streams: {
      plain: textStream,
      tools: transcript("openai.responses.stream.reasoning_tools.sse"),
      json_schema: textStream,
      reasoning: textStream,
    },
    failure: deepFreeze({ error: payload("error"), failed: payload("response.failed") }),
  };
}
