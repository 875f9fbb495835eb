// The types OpenAI's API defines for the embeddings fields (CreateEmbeddingRequest in its OpenAPI
// spec): `input` is text, token ids, or a list of either, never anything else, and no list longer
// than OpenAI's documented 2048 items.
import { type FieldType, fieldChecker, integerFrom, oneOf, STRING } from "../field-types";

/** OpenAI's documented maximum for every array in `input` ("2048 dimensions or less"): the gateway walks each to estimate and translate. */
export const EMBEDDINGS_INPUT_ITEMS = 2048;

const isText = (value: unknown) => typeof value === "string";
const isTokenId = (value: unknown) => Number.isInteger(value) && (value as number) >= 0;
const isList = (value: unknown): value is unknown[] => Array.isArray(value) && value.length > 0 && value.length <= EMBEDDINGS_INPUT_ITEMS;
const isTokenIds = (value: unknown) => isList(value) && value.every(isTokenId);

const INPUT: FieldType = {
  check: (value) => isText(value) || (isList(value) && (value.every(isText) || value.every(isTokenId) || value.every(isTokenIds))),
  expected: `a string, an array of token ids, or a non-empty array of strings or of token id arrays (${EMBEDDINGS_INPUT_ITEMS} items at most in each array)`,
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
export const checkEmbeddingsFields = fieldChecker(FIELDS);
