// OpenAI embeddings as Gemini `batchEmbedContents`, and back. One batch call
// serves a single string and an array alike, so the answer always has the
// same shape. Gemini reports no token usage for embeddings: the answer carries
// none, and the proxy estimates it.
import { invalidRequest } from "../../errors";
import type { RequestContext, ResponseContext, UpstreamCall } from "../provider-adapter";
import { geminiHeaders, modelResource } from "./chat-request";
import { isObject, type JsonObject } from "./wire-types";

export function embeddingsCall(body: JsonObject, context: RequestContext): UpstreamCall {
  const model = modelResource(context.upstreamModel);
  const dimensions =
    typeof body.dimensions === "number" && Number.isInteger(body.dimensions) && body.dimensions > 0 ? body.dimensions : undefined;
  const requests = embeddingInputs(body.input).map((text) => {
    const request: JsonObject = { model, content: { parts: [{ text }] } };
    if (dimensions !== undefined) request.outputDimensionality = dimensions;
    return request;
  });
  return { path: `/${model}:batchEmbedContents`, headers: geminiHeaders(context), body: JSON.stringify({ requests }) };
}

/**
 * Text inputs. OpenAI also accepts token ids (arrays of integers), which are
 * the tokens of OpenAI's tokenizers and mean nothing to Gemini: that is a
 * request this upstream cannot serve, not a field to drop, so it is refused.
 */
function embeddingInputs(input: unknown): string[] {
  if (typeof input === "string") return [input];
  if (Array.isArray(input) && input.every((item) => typeof item === "string")) return input;
  throw invalidRequest("unsupported_input", "This model takes embeddings input as a string or an array of strings, not token ids.");
}

/** A batchEmbedContents answer (`embeddings[]`), or an embedContent one (`embedding`), as an OpenAI embeddings list with float vectors. */
export function embeddingsList(json: unknown, context: ResponseContext): JsonObject {
  const embeddings = isObject(json)
    ? Array.isArray(json.embeddings)
      ? json.embeddings
      : isObject(json.embedding)
        ? [json.embedding]
        : undefined
    : undefined;
  if (!embeddings) throw new Error("gemini: the body is not an embeddings answer");
  const data = embeddings.map((embedding, index) => {
    const values = isObject(embedding) ? embedding.values : undefined;
    if (!Array.isArray(values) || !values.every((value) => typeof value === "number"))
      throw new Error("gemini: an embedding has no values");
    return { object: "embedding", index, embedding: values };
  });
  return { object: "list", data, model: context.model };
}
