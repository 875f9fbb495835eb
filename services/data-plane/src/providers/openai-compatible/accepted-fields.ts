// Request fields forwarded to OpenAI-compatible upstreams. Everything else in
// a caller's body is dropped silently, never an error. The lists are the
// properties of CreateChatCompletionRequest / CreateEmbeddingRequest in
// OpenAI's OpenAPI description (API 2.3.0).

/**
 * CreateChatCompletionRequest's properties, less `metadata`: it only tags completions stored in the
 * provider account, and the gateway has none stored there (`store` is always sent false,
 * openai-compatible-adapter.ts); OpenAI refuses `metadata` without `store: true`.
 */
export const OPENAI_CHAT_FIELDS: ReadonlySet<string> = new Set([
  "audio",
  "frequency_penalty",
  "function_call",
  "functions",
  "logit_bias",
  "logprobs",
  "max_completion_tokens",
  "max_tokens",
  "messages",
  "modalities",
  "model",
  "moderation",
  "n",
  "parallel_tool_calls",
  "prediction",
  "presence_penalty",
  "prompt_cache_key",
  "prompt_cache_options",
  "prompt_cache_retention",
  "reasoning_effort",
  "response_format",
  "safety_identifier",
  "seed",
  "service_tier",
  "stop",
  "store",
  "stream",
  "stream_options",
  "temperature",
  "tool_choice",
  "tools",
  "top_logprobs",
  "top_p",
  "user",
  "verbosity",
  "web_search_options",
]);

/**
 * The properties of CreateResponse (Responses API, same description), less the three that need
 * state kept upstream (`previous_response_id`, `conversation`, `background`): the gateway refuses
 * them before a call is built, and must never forward them.
 */
export const OPENAI_RESPONSES_FIELDS: ReadonlySet<string> = new Set([
  "context_management",
  "include",
  "input",
  "instructions",
  "max_output_tokens",
  "max_tool_calls",
  "metadata",
  "model",
  "moderation",
  "parallel_tool_calls",
  "prompt",
  "prompt_cache_key",
  "prompt_cache_options",
  "prompt_cache_retention",
  "reasoning",
  "safety_identifier",
  "service_tier",
  "store",
  "stream",
  "stream_options",
  "temperature",
  "text",
  "tool_choice",
  "tools",
  "top_logprobs",
  "top_p",
  "truncation",
  "user",
]);

export const OPENAI_EMBEDDINGS_FIELDS: ReadonlySet<string> = new Set(["dimensions", "encoding_format", "input", "model", "user"]);

/** Copies the accepted fields, in the caller's order. */
export function pickFields(body: Record<string, unknown>, accepted: ReadonlySet<string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) if (accepted.has(key)) out[key] = value;
  return out;
}
