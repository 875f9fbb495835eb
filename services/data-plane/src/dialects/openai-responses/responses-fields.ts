// The types OpenAI's API defines for the Responses fields (CreateResponse in its OpenAPI spec): a
// field of another type is refused before the body is translated or passed through as written.
import {
  ARRAY,
  BOOLEAN,
  fieldChecker,
  type FieldType,
  integerFrom,
  NUMBER,
  OBJECT,
  STRING,
  STRING_OR_ARRAY,
  STRING_OR_OBJECT,
  TOKEN_COUNT,
} from "../field-types";

const FIELDS: Record<string, FieldType> = {
  model: STRING,
  input: STRING_OR_ARRAY,
  instructions: STRING,
  stream: BOOLEAN,
  stream_options: OBJECT,
  store: BOOLEAN,
  background: BOOLEAN,
  max_output_tokens: TOKEN_COUNT,
  max_tool_calls: integerFrom(1, 1_000_000),
  temperature: NUMBER,
  top_p: NUMBER,
  top_logprobs: integerFrom(0, 20),
  parallel_tool_calls: BOOLEAN,
  tools: ARRAY,
  tool_choice: STRING_OR_OBJECT,
  include: ARRAY,
  metadata: OBJECT,
  reasoning: OBJECT,
  text: OBJECT,
  truncation: STRING,
  user: STRING,
  safety_identifier: STRING,
  prompt_cache_key: STRING,
  prompt_cache_retention: STRING,
  service_tier: STRING,
  previous_response_id: STRING,
  conversation: STRING_OR_OBJECT,
  prompt: OBJECT,
};

/** Throws invalid_body naming the first defined field whose value is not of its type. */
export const checkResponsesFields = fieldChecker(FIELDS);
