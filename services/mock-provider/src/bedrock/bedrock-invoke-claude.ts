// Claude through InvokeModel: the body is Anthropic's Messages request with
// `anthropic_version: "bedrock-2023-05-31"` and no `model`; the answer is an Anthropic
// Message built by the Anthropic persona's builders (id `msg_bdrk_…`, the Anthropic model
// name). InvokeModelWithResponseStream sends each Anthropic event as a `chunk` message
// `{"bytes": <base64 of the event's JSON>, "p"}`, no `ping`, and adds
// `amazon-bedrock-invocationMetrics` to `message_stop`.
import type { AnthropicKind } from "../anthropic-fixtures";
import { messageResponse, messageStreamEvents, type MessageIdentity } from "../anthropic-messages";
import type { AnthropicEvent } from "../anthropic-sse";
import type { Fixtures } from "../fixtures";
import { isRecord, type Json } from "../json";
import type { TokenCounts } from "../usage";
import { type BedrockEvent, padded } from "./bedrock-event-stream";
import type { BedrockFixtures } from "./bedrock-fixtures";

export const BEDROCK_ANTHROPIC_VERSION = "bedrock-2023-05-31";

const malformed = (detail: string) => `Malformed input request: ${detail}, please reformat your input and try again.`;

/** What InvokeModel refuses in a Claude body (ValidationException's message), undefined when servable. */
export function invalidClaudeBody(body: unknown): string | undefined {
  if (!isRecord(body)) return malformed("#: expected type: JSONObject");
  if (body.anthropic_version === undefined) return malformed("#: required key [anthropic_version] not found");
  if (body.anthropic_version !== BEDROCK_ANTHROPIC_VERSION) {
    return malformed(`#/anthropic_version: ${JSON.stringify(body.anthropic_version)} is not a valid enum value`);
  }
  if ("model" in body) return malformed("#: extraneous key [model] is not permitted");
  if (typeof body.max_tokens !== "number") return malformed("#: required key [max_tokens] not found");
  if (!Array.isArray(body.messages)) return malformed("#: required key [messages] not found");
  return undefined;
}

/** The Message an InvokeModel call answers with: Anthropic's tool_use answer for tools, else the recorded Bedrock one. */
export function claudeMessage(
  fixtures: Fixtures,
  bedrock: BedrockFixtures,
  kind: AnthropicKind,
  identity: MessageIdentity,
  usage: TokenCounts | undefined,
): Json {
  const recorded = kind === "tools" ? fixtures.anthropic.messages.tools : bedrock.invoke.message;
  return messageResponse(recorded, identity, usage);
}

/** Bedrock's token-count headers of an InvokeModel answer (as its HTTP headers carry them). */
export function invocationHeaders(message: Json): Record<string, string> {
  const usage = isRecord(message.usage) ? message.usage : {};
  const headers: Record<string, string> = {
    "x-amzn-bedrock-input-token-count": String(usage.input_tokens ?? 0),
    "x-amzn-bedrock-output-token-count": String(usage.output_tokens ?? 0),
    "x-amzn-bedrock-invocation-latency": "812",
  };
  if (typeof usage.cache_read_input_tokens === "number" && usage.cache_read_input_tokens > 0)
    headers["x-amzn-bedrock-cache-read-input-token-count"] = String(usage.cache_read_input_tokens);
  if (typeof usage.cache_creation_input_tokens === "number" && usage.cache_creation_input_tokens > 0)
    headers["x-amzn-bedrock-cache-write-input-token-count"] = String(usage.cache_creation_input_tokens);
  return headers;
}

const usageOf = (data: string, path: "message" | "delta"): Json => {
  const event = JSON.parse(data) as Json;
  const holder = path === "message" && isRecord(event.message) ? event.message : event;
  return isRecord(holder.usage) ? holder.usage : {};
};

/** message_stop with the invocation metrics of this answer (latencies as recorded, or plausible ones). */
function withInvocationMetrics(events: AnthropicEvent[], counts: TokenCounts | undefined): AnthropicEvent[] {
  const start = events.find((event) => event.event === "message_start");
  const delta = events.find((event) => event.event === "message_delta");
  return events.map((event) => {
    if (event.event !== "message_stop") return event;
    const payload = JSON.parse(event.data) as Json;
    const recorded = isRecord(payload["amazon-bedrock-invocationMetrics"]) ? payload["amazon-bedrock-invocationMetrics"] : {};
    const metrics: Json = {
      inputTokenCount: start ? (usageOf(start.data, "message").input_tokens ?? 0) : 0,
      outputTokenCount: delta ? (usageOf(delta.data, "delta").output_tokens ?? 0) : 0,
      invocationLatency: recorded.invocationLatency ?? 1650,
      firstByteLatency: recorded.firstByteLatency ?? 420,
    };
    if (counts?.cached_tokens !== undefined) metrics.cacheReadInputTokenCount = counts.cached_tokens;
    const writes = counts ? (counts.cache_creation_tokens ?? 0) + (counts.cache_creation_1h_tokens ?? 0) : 0;
    if (counts?.cache_creation_tokens !== undefined || counts?.cache_creation_1h_tokens !== undefined)
      metrics.cacheWriteInputTokenCount = writes;
    return { event: event.event, data: JSON.stringify({ ...payload, "amazon-bedrock-invocationMetrics": metrics }) };
  });
}

/** The `chunk` events of an InvokeModelWithResponseStream answer. */
export function claudeStreamChunks(
  fixtures: Fixtures,
  bedrock: BedrockFixtures,
  kind: AnthropicKind,
  identity: MessageIdentity,
  usage: TokenCounts | undefined,
): BedrockEvent[] {
  const recorded = kind === "tools" ? fixtures.anthropic.streams.tools.filter((event) => event.event !== "ping") : bedrock.invoke.stream;
  const events = withInvocationMetrics(messageStreamEvents(recorded, identity, usage), usage);
  return events.map((event) => ({ type: "chunk", payload: padded({ bytes: Buffer.from(event.data).toString("base64") }) }));
}
