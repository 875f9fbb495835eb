// Embeddings through InvokeModel, in the two models' own bodies (no recording was
// found; shapes from their documented schemas): Amazon Titan text
// {inputText[, dimensions]} -> {embedding, inputTextTokenCount}, and Cohere
// {texts, input_type} -> {embeddings: [[...]], id, response_type: "embeddings_floats", texts}.
// Vectors are unit vectors derived from each text (the OpenAI persona's), so equal
// texts embed equally.
import { randomUUID } from "node:crypto";
import { derivedVector } from "../embeddings";
import { isRecord, type Json } from "../json";

const malformed = (detail: string) => `Malformed input request: ${detail}, please reformat your input and try again.`;

/** ceil(characters / 4), at least 1: the mock's token estimate. */
export const estimateTokens = (text: string) => Math.max(1, Math.ceil(text.length / 4));

const TITAN_V2_DIMENSIONS = new Set([256, 512, 1024]);

export type EmbeddingAnswer = { body: Json; inputTokens: number } | { problem: string };

/** Titan text embeddings: v1 1536 floats, v2 1024 (or `dimensions`: 256, 512, 1024). */
export function titanEmbedding(modelId: string, body: unknown, scriptedTokens: number | undefined): EmbeddingAnswer {
  if (!isRecord(body)) return { problem: malformed("#: expected type: JSONObject") };
  if (typeof body.inputText !== "string") return { problem: malformed("#: required key [inputText] not found") };
  const v1 = /titan-embed-text-v1/.test(modelId);
  let dimensions = v1 ? 1536 : 1024;
  if (body.dimensions !== undefined) {
    if (v1 || typeof body.dimensions !== "number" || !TITAN_V2_DIMENSIONS.has(body.dimensions)) {
      return { problem: malformed(`#/dimensions: ${JSON.stringify(body.dimensions)} is not a valid enum value`) };
    }
    dimensions = body.dimensions;
  }
  const inputTokens = scriptedTokens ?? estimateTokens(body.inputText);
  return { body: { embedding: derivedVector(body.inputText, dimensions), inputTextTokenCount: inputTokens }, inputTokens };
}

/** Cohere embed (v3: 1024 floats per text); the answer reports no token count (the headers do). */
export function cohereEmbeddings(body: unknown, scriptedTokens: number | undefined): EmbeddingAnswer {
  if (!isRecord(body)) return { problem: malformed("#: expected type: JSONObject") };
  const texts = body.texts;
  if (!Array.isArray(texts) || !texts.every((text): text is string => typeof text === "string")) {
    return { problem: malformed("#: required key [texts] not found") };
  }
  if (texts.length > 96) return { problem: malformed(`#/texts: expected maximum item count: 96, found: ${texts.length}`) };
  if (typeof body.input_type !== "string") return { problem: malformed("#: required key [input_type] not found") };
  const inputTokens = scriptedTokens ?? texts.reduce((sum, text) => sum + estimateTokens(text), 0);
  return {
    body: { embeddings: texts.map((text) => derivedVector(text, 1024)), id: randomUUID(), response_type: "embeddings_floats", texts },
    inputTokens,
  };
}
