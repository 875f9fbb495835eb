// The OpenAI Responses API (POST /v1/responses): pick the recorded Response by
// request shape, then rewrite only what must differ per request (id,
// created_at, model, and usage when scripted). Streams replay the recorded
// events (`event: <type>` + `data: <json>`, numbered by sequence_number, no
// [DONE]); only the events carrying the Response object are rewritten.
import { anthropicFrame } from "./anthropic-sse";
import { isRecord, type Json } from "./json";
import type { ResponsesEvent, ResponsesFixtures, ResponsesKind } from "./responses-fixtures";
import { cacheWrites, type TokenCounts } from "./usage";
import type { StreamFraming } from "./wire";
import { MALFORMED_JSON } from "./wire";

export interface ResponseIdentity {
  id: string;
  created_at: number;
  model: string;
}

/** Events whose `response` is the Response object (rewritten per request). */
const CARRIES_RESPONSE = new Set(["response.created", "response.in_progress", "response.completed", "response.failed"]);

/** True when the input's last item hands a function result back: the model answers in text then. */
function endsWithFunctionCallOutput(input: unknown): boolean {
  if (!Array.isArray(input)) return false;
  const last: unknown = input[input.length - 1];
  return isRecord(last) && last.type === "function_call_output";
}

export function chooseResponsesKind(body: Json): ResponsesKind {
  if (endsWithFunctionCallOutput(body.input)) return "plain";
  if (Array.isArray(body.tools) && body.tools.some((tool) => isRecord(tool) && tool.type === "function")) return "tools";
  if (isRecord(body.text) && isRecord(body.text.format) && body.text.format.type === "json_schema") return "json_schema";
  if (isRecord(body.reasoning)) return "reasoning";
  return "plain";
}

/**
 * Responses usage with the counters replaced and the details objects kept;
 * scripted details go to `input_tokens_details.cached_tokens` /
 * `cache_write_tokens` (both write lifetimes) and `output_tokens_details.reasoning_tokens`
 * (shape of openai.responses.cached.response.json).
 */
export function responsesUsage(recorded: unknown, counts: TokenCounts): Json {
  const base = isRecord(recorded) ? recorded : {};
  const usage: Json = {
    ...base,
    input_tokens: counts.prompt_tokens,
    output_tokens: counts.completion_tokens,
    total_tokens: counts.prompt_tokens + counts.completion_tokens,
  };
  const writes = cacheWrites(counts);
  if (counts.cached_tokens !== undefined || writes !== undefined) {
    const details: Json = isRecord(base.input_tokens_details) ? { ...base.input_tokens_details } : {};
    if (counts.cached_tokens !== undefined) details.cached_tokens = counts.cached_tokens;
    if (writes !== undefined) details.cache_write_tokens = writes;
    usage.input_tokens_details = details;
  }
  if (counts.reasoning_tokens !== undefined) {
    const details = isRecord(base.output_tokens_details) ? base.output_tokens_details : {};
    usage.output_tokens_details = { ...details, reasoning_tokens: counts.reasoning_tokens };
  }
  return usage;
}

/**
 * A Response object: the recording with id/created_at/model (and usage and the tier served when
 * scripted) replaced, key order kept.
 */
export function responseObject(recorded: Json, identity: ResponseIdentity, usage: TokenCounts | undefined): Json {
  const response: Json = { ...recorded, id: identity.id, created_at: identity.created_at, model: identity.model };
  if (usage && recorded.usage !== null) response.usage = responsesUsage(recorded.usage, usage);
  if (usage?.service_tier !== undefined) response.service_tier = usage.service_tier;
  return response;
}

function eventFrame(payload: Json): string {
  return anthropicFrame({ event: String(payload.type), data: JSON.stringify(payload) });
}

/**
 * The stream's events for this request, in send order: the Response object in
 * created/in_progress/completed rewritten (usage and the tier served only in
 * response.completed: the others carry `usage: null` and the tier asked for,
 * "auto"), every other event exactly as recorded.
 */
export function responseStreamEvents(
  events: readonly ResponsesEvent[],
  identity: ResponseIdentity,
  usage: TokenCounts | undefined,
): ResponsesEvent[] {
  return events.map((event) => {
    if (!CARRIES_RESPONSE.has(event.event)) return event;
    const payload = JSON.parse(event.data) as Json;
    const scripted = event.event === "response.completed" ? usage : undefined;
    const response = responseObject(payload.response as Json, identity, scripted);
    return { event: event.event, data: JSON.stringify({ ...payload, response }) };
  });
}

export function responseStreamFrames(
  events: readonly ResponsesEvent[],
  identity: ResponseIdentity,
  usage: TokenCounts | undefined,
): string[] {
  return responseStreamEvents(events, identity, usage).map(anthropicFrame);
}

/** Script `assembled`: the stream folded into its final Response, the one `response.completed` carries. */
export function assembleResponse(events: readonly ResponsesEvent[]): Json {
  const completed = events.find((event) => event.event === "response.completed");
  if (!completed) throw new Error("a Responses stream must end with response.completed");
  return (JSON.parse(completed.data) as Json).response as Json;
}

/**
 * The Responses wire form of a stream failure (openai.responses.stream.error.sse):
 * the recorded `error` event, then `response.failed` carrying this request's
 * Response (id/created_at/model), numbered on from the events already sent.
 */
export function responsesStreamFraming(failure: ResponsesFixtures["failure"], identity: ResponseIdentity): StreamFraming {
  return {
    contentType: "text/event-stream",
    errorEvent: (sent) =>
      eventFrame({ ...failure.error, sequence_number: sent }) +
      eventFrame({
        ...failure.failed,
        sequence_number: sent + 1,
        response: responseObject(failure.failed.response as Json, identity, undefined),
      }),
    malformedEvent: `event: response.output_text.delta\ndata: ${MALFORMED_JSON}\n\n`,
  };
}
