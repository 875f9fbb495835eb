// The types OpenAI's API defines for the embeddings fields (CreateEmbeddingRequest in its OpenAPI
// spec): `input` is text, token ids, or a list of either, never anything else.
import { checkFieldTypes, type FieldType, integerFrom, oneOf, STRING } from "../field-types";

const isText = (value: unknown) => typeof value === "string";
const isTokenId = (value: unknown) => Number.isInteger(value) && (value as number) >= 0;
const isTokenIds = (value: unknown) => Array.isArray(value) && value.length > 0 && value.every(isTokenId);

const INPUT: FieldType = {
  check: (value) =>
    isText(value) ||
    (Array.isArray(value) && value.length > 0 && (value.every(isText) || value.every(isTokenId) || value.every(isTokenIds))),
  expected: "a string, an array of token ids, or a non-empty array of strings or of token id arrays",
};

const FIELDS: Record<string, FieldType> = {
  model: STRING,
  input: INPUT,
  // Above any embeddings model's width (3,072 at most today).
  dimensions: integerFrom(1, 65_536),
  encoding_format: oneOf("float", "base64"),
  user: STRING,
};

/** Throws invalid_body naming the first defined field whose value is not of its type. */
export const checkEmbeddingsFields = (body: Record<string, unknown>): void => checkFieldTypes(body, FIELDS);
