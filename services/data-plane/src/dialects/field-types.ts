// The one check of the fields an API defines (OpenAI's chat, Responses and embeddings, Anthropic's
// Messages): each dialect lists its fields with their types here, and a field of another type is
// refused with 400 invalid_body naming it, before anything is routed, held or sent upstream. null is
// an unset field, as both APIs take it. Unknown fields are not checked: they are dropped on the way out.
import type { GatewayError } from "@gateway/proto";
import { invalidRequest } from "../errors";

export type Check = (value: unknown) => boolean;
export interface FieldType {
  check: Check;
  expected: string;
}

/** Far above any model's output limit, far below what the money arithmetic could mistake. */
export const MAX_TOKENS_BOUND = 100_000_000;

const isString: Check = (value) => typeof value === "string";
const isBoolean: Check = (value) => typeof value === "boolean";
const isNumber: Check = (value) => typeof value === "number" && Number.isFinite(value);
const isObject: Check = (value) => typeof value === "object" && value !== null && !Array.isArray(value);
const isArray: Check = Array.isArray;
const integer =
  (min: number, max: number): Check =>
  (value) =>
    Number.isInteger(value) && (value as number) >= min && (value as number) <= max;

export const STRING: FieldType = { check: isString, expected: "a string" };
export const BOOLEAN: FieldType = { check: isBoolean, expected: "a boolean" };
export const NUMBER: FieldType = { check: isNumber, expected: "a number" };
export const OBJECT: FieldType = { check: isObject, expected: "an object" };
export const ARRAY: FieldType = { check: isArray, expected: "an array" };
export const STRING_OR_OBJECT: FieldType = { check: (value) => isString(value) || isObject(value), expected: "a string or an object" };
export const STRING_OR_ARRAY: FieldType = { check: (value) => isString(value) || isArray(value), expected: "a string or an array" };
export const ANY_INTEGER: FieldType = { check: integer(Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER), expected: "an integer" };
export const TOKEN_COUNT: FieldType = integerFrom(1, MAX_TOKENS_BOUND);

export function integerFrom(min: number, max: number): FieldType {
  return { check: integer(min, max), expected: `an integer from ${min} to ${max}` };
}

/** A string, or a list of at most `max` strings: a list whose maximum the API documents (chat's `stop`: 4). */
export function stringOrStrings(max: number): FieldType {
  return {
    check: (value) => isString(value) || (isArray(value) && (value as unknown[]).length <= max && (value as unknown[]).every(isString)),
    expected: `a string or an array of at most ${max} strings`,
  };
}

export function oneOf(...values: string[]): FieldType {
  return { check: (value) => values.includes(value as string), expected: `one of ${values.map((v) => `"${v}"`).join(", ")}` };
}

/** How each dialect words the refusal: OpenAI's `stream must be a boolean.`, Anthropic's `stream: must be a boolean.` */
export type Refusal = (field: string, expected: string) => GatewayError;
const openAiRefusal: Refusal = (field, expected) => invalidRequest("invalid_body", `${field} must be ${expected}.`, field);

/**
 * A dialect's check of its table: throws invalid_body naming the first listed field whose value is
 * set and not of its type. The table is read once; a request's check walks the fields it sent (a
 * few), not the table (dozens), and the table only when one of them is refused.
 */
export function fieldChecker(fields: Record<string, FieldType>, refuse = openAiRefusal): (body: Record<string, unknown>) => void {
  const types = new Map(Object.entries(fields));
  const refused = (field: string, value: unknown) => {
    const type = types.get(field);
    return type !== undefined && value !== undefined && value !== null && !type.check(value);
  };
  return (body) => {
    for (const field in body) {
      if (!refused(field, body[field])) continue;
      // The first listed one the body got wrong, as the table orders them.
      for (const [listed, { expected }] of types) if (refused(listed, body[listed])) throw refuse(listed, expected);
    }
  };
}
