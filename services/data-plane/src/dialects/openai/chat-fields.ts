// The types OpenAI's API defines for the chat completions fields the gateway reads or forwards: a
// field of another type is refused with 400 invalid_body naming it, before anything goes upstream
// (`"stream": "yes"` was forwarded as is; `"n": 1e308` reached the hold's arithmetic). null is an
// unset field, as OpenAI takes it. Unknown fields are not checked: they are dropped on the way out.
import { invalidRequest } from "../../errors";

type Check = (value: unknown) => boolean;

const isString: Check = (value) => typeof value === "string";
const isBoolean: Check = (value) => typeof value === "boolean";
const isNumber: Check = (value) => typeof value === "number" && Number.isFinite(value);
const isObject: Check = (value) => typeof value === "object" && value !== null && !Array.isArray(value);
const isArray: Check = Array.isArray;
const integer =
  (min: number, max: number): Check =>
  (value) =>
    Number.isInteger(value) && (value as number) >= min && (value as number) <= max;

/** Far above any model's output limit, far below what the money arithmetic could mistake. */
const MAX_TOKENS_BOUND = 100_000_000;

const FIELDS: Record<string, { check: Check; expected: string }> = {
  model: { check: isString, expected: "a string" },
  messages: { check: isArray, expected: "an array" },
  stream: { check: isBoolean, expected: "a boolean" },
  stream_options: { check: isObject, expected: "an object" },
  n: { check: integer(1, 128), expected: "an integer from 1 to 128" },
  max_tokens: { check: integer(1, MAX_TOKENS_BOUND), expected: `an integer from 1 to ${MAX_TOKENS_BOUND}` },
  max_completion_tokens: { check: integer(1, MAX_TOKENS_BOUND), expected: `an integer from 1 to ${MAX_TOKENS_BOUND}` },
  temperature: { check: isNumber, expected: "a number" },
  top_p: { check: isNumber, expected: "a number" },
  presence_penalty: { check: isNumber, expected: "a number" },
  frequency_penalty: { check: isNumber, expected: "a number" },
  seed: { check: integer(Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER), expected: "an integer" },
  logprobs: { check: isBoolean, expected: "a boolean" },
  top_logprobs: { check: integer(0, 20), expected: "an integer from 0 to 20" },
  logit_bias: { check: isObject, expected: "an object" },
  parallel_tool_calls: { check: isBoolean, expected: "a boolean" },
  tools: { check: isArray, expected: "an array" },
  tool_choice: { check: (value) => isString(value) || isObject(value), expected: "a string or an object" },
  response_format: { check: isObject, expected: "an object" },
  stop: { check: (value) => isString(value) || isArray(value), expected: "a string or an array" },
  modalities: { check: isArray, expected: "an array" },
  metadata: { check: isObject, expected: "an object" },
  user: { check: isString, expected: "a string" },
  service_tier: { check: isString, expected: "a string" },
  reasoning_effort: { check: isString, expected: "a string" },
  store: { check: isBoolean, expected: "a boolean" },
};

/** Throws invalid_body naming the first defined field whose value is not of its type. */
export function checkChatFields(body: Record<string, unknown>): void {
  for (const [field, { check, expected }] of Object.entries(FIELDS)) {
    const value = body[field];
    if (value !== undefined && value !== null && !check(value)) throw invalidRequest("invalid_body", `${field} must be ${expected}.`);
  }
}
