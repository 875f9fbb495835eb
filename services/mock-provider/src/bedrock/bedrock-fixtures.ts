// The Bedrock recordings the persona replays (fixtures/README.md): Converse answers
// (text, tool call), the recorded ConverseStream body, the three exception messages,
// and InvokeModel's Claude answer and (trimmed) stream. Read once per process, frozen.
import { readFileSync } from "node:fs";
import type { AnthropicEvent } from "../anthropic-sse";
import { deepFreeze, fixtureReader } from "../fixture-files";
import { FIXTURES_DIR } from "../fixtures";
import type { Json } from "../json";
import { type BedrockEvent, decodeEvents } from "./bedrock-event-stream";

export type BedrockExceptionType = "throttlingException" | "modelStreamErrorException" | "serviceUnavailableException";

export interface BedrockFixtures {
  converse: { plain: Json; tools: Json; stream: readonly BedrockEvent[] };
  /** Exception messages as recorded, sent byte for byte. */
  exceptions: Readonly<Record<BedrockExceptionType, Uint8Array>>;
  /** Claude through InvokeModel: the answer, and the inner Anthropic events of the stream (no `ping`). */
  invoke: { message: Json; stream: readonly AnthropicEvent[] };
}

let loaded: BedrockFixtures | undefined;

export function bedrockFixtures(): BedrockFixtures {
  if (!loaded) {
    const { text, json } = fixtureReader(FIXTURES_DIR);
    const bytes = (name: string) => new Uint8Array(readFileSync(FIXTURES_DIR + name));
    const exceptions = {
      throttlingException: bytes("bedrock.converse-stream.exception.throttling.bin"),
      modelStreamErrorException: bytes("bedrock.converse-stream.exception.modelStreamError.bin"),
      serviceUnavailableException: bytes("bedrock.converse-stream.exception.serviceUnavailable.bin"),
    };
    // Each line is one event's JSON exactly as its `bytes` decode; the type is its `type`.
    const stream = text("bedrock.invoke-stream.anthropic.jsonl")
      .split("\n")
      .filter((line) => line !== "")
      .map((data) => ({ event: (JSON.parse(data) as { type: string }).type, data }));
    const frozen = deepFreeze({
      converse: {
        plain: json("bedrock.converse.response.json"),
        tools: json("bedrock.converse.tools.response.json"),
        stream: decodeEvents(bytes("bedrock.converse-stream.bin")),
      },
      invoke: { message: json("bedrock.invoke.anthropic.response.json"), stream },
    });
    // Typed arrays cannot be frozen; they are never written to.
    loaded = { ...frozen, exceptions };
  }
  return loaded;
}
