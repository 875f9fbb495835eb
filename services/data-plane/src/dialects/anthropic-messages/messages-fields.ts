// The types Anthropic's API documents for the Messages fields (and count_tokens', the same less
// max_tokens and stream): a field of another type is refused in Anthropic's wording (`stream: must be
// a boolean.`) before the body is translated or passed through as written.
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
import { badField } from "./json-fields";

const STRINGS: FieldType = {
  check: (value) => Array.isArray(value) && value.every((item) => typeof item === "string"),
  expected: "an array of strings",
};

const FIELDS: Record<string, FieldType> = {
  model: STRING,
  messages: ARRAY,
  max_tokens: TOKEN_COUNT,
  system: STRING_OR_ARRAY,
  stream: BOOLEAN,
  stop_sequences: STRINGS,
  temperature: NUMBER,
  top_p: NUMBER,
  top_k: integerFrom(1, 1_000_000),
  tools: ARRAY,
  tool_choice: OBJECT,
  metadata: OBJECT,
  thinking: OBJECT,
  service_tier: STRING,
  container: STRING_OR_OBJECT,
  mcp_servers: ARRAY,
  output_config: OBJECT,
  context_management: OBJECT,
};

/** Throws invalid_body naming the first documented field whose value is not of its type. */
export const checkMessagesFields = fieldChecker(FIELDS, (field, expected) => badField(field, `must be ${expected}.`));
