// The OpenAI Responses API spoken by the upstream itself (OpenAI, or an
// OpenAI-compatible vendor configured with <NAME>_RESPONSES_API=true): a
// Responses client's body goes to POST /responses as written, and the answer
// comes back as written; it is read here only for the usage meter.
import type { NativeCodec, RequestContext, UpstreamCall } from "../provider-adapter";
import { OPENAI_RESPONSES_FIELDS, pickFields } from "./accepted-fields";
import { readResponsesAnswer } from "./read-responses-answer";
import { ResponsesStreamReader } from "./responses-stream-reader";
import { ResponsesEventBytes } from "./responses-event-bytes";
import { readResponsesUsage } from "./responses-usage";

export const responsesCodec: NativeCodec = {
  call: responsesCall,
  response: (json, context) => readResponsesAnswer(json, context),
  usage: (json) => (typeof json === "object" && json !== null ? readResponsesUsage(json) : undefined),
  stream: () => new ResponsesStreamReader(),
  eventBytes: () => new ResponsesEventBytes(),
};

/**
 * Accepted fields in the client's order, the upstream's model id, `store: false` (the gateway keeps
 * no responses, and has the upstream keep none either) and a cap, when given, in `max_output_tokens`.
 * A client that did not say `store: false` expects stored responses: it sends reasoning items back
 * by id (the openai and Agents SDKs do), which OpenAI cannot find when nothing is stored; asking for
 * `reasoning.encrypted_content` makes those items carry their content, so they can be sent again.
 */
export function responsesCall(body: Record<string, unknown>, context: RequestContext, maxTokens?: number): UpstreamCall {
  const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json, text/event-stream" };
  if (context.apiKey) headers.authorization = `Bearer ${context.apiKey}`;
  const upstream = pickFields(body, OPENAI_RESPONSES_FIELDS);
  upstream.model = context.upstreamModel;
  upstream.store = false;
  if (body.store !== false) upstream.include = withEncryptedReasoning(upstream.include);
  if (maxTokens !== undefined) upstream.max_output_tokens = maxTokens;
  // stream_options (include_obfuscation) is only valid on a stream; usage always comes in response.completed.
  if (upstream.stream !== true) delete upstream.stream_options;
  return { path: "/responses", headers, body: JSON.stringify(upstream) };
}

const ENCRYPTED_REASONING = "reasoning.encrypted_content";

/** The client's own `include` entries, with encrypted reasoning added once. */
function withEncryptedReasoning(include: unknown): unknown[] {
  const entries = Array.isArray(include) ? include : [];
  return entries.includes(ENCRYPTED_REASONING) ? entries : [...entries, ENCRYPTED_REASONING];
}
