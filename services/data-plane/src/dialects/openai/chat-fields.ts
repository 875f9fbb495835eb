// The types OpenAI's API defines for the chat completions fields the gateway reads or forwards
// (`"stream": "yes"` was forwarded as is; `"n": 1e308` reached the hold's arithmetic).
import {
  ANY_INTEGER,
  ARRAY,
  BOOLEAN,
  fieldChecker,
  type FieldType,
  integerFrom,
  NUMBER,
  OBJECT,
  STRING,
  STRING_OR_OBJECT,
  stringOrStrings,
  TOKEN_COUNT,
} from "../field-types";

const FIELDS: Record<string, FieldType> = {
  model: STRING,
  messages: ARRAY,
  stream: BOOLEAN,
  stream_options: OBJECT,
  n: integerFrom(1, 128),
  max_tokens: TOKEN_COUNT,
  max_completion_tokens: TOKEN_COUNT,
  temperature: NUMBER,
  top_p: NUMBER,
  presence_penalty: NUMBER,
  frequency_penalty: NUMBER,
  seed: ANY_INTEGER,
  logprobs: BOOLEAN,
  top_logprobs: integerFrom(0, 20),
  logit_bias: OBJECT,
  parallel_tool_calls: BOOLEAN,
  tools: ARRAY,
  tool_choice: STRING_OR_OBJECT,
  response_format: OBJECT,
  // OpenAI's documented maximum (StopConfiguration); the translations to Anthropic and Gemini walk the list.
  stop: stringOrStrings(4),
  modalities: ARRAY,
  metadata: OBJECT,
  user: STRING,
  service_tier: STRING,
  reasoning_effort: STRING,
  store: BOOLEAN,
};

/** Throws invalid_body naming the first defined field whose value is not of its type. */
export const checkChatFields = fieldChecker(FIELDS);
