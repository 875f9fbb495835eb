// OpenAI embeddings as a Vertex AI `:predict` call on Google's embedding models
// (text-embedding-005, text-multilingual-embedding-002, gemini-embedding-001),
// and back. Vertex does not serve the Gemini API's batchEmbedContents for
// publisher models: its form is `{"instances":[{"content"}],"parameters"}` ->
// `{"predictions":[{"embeddings":{"values","statistics":{"token_count"}}}]}`.
// Unlike the Gemini API, Vertex reports each input's tokens: they are billed.
// gemini-embedding-001 takes one instance per call: an array of several inputs is
// refused by Vertex (HTTP 400), as it would be by the model.
import type { UsageRecord } from "../../billing/pricing";
import { invalidRequest } from "../../errors";
import { tokenCount, usageRecord } from "../chat-usage";
import { isObject, type JsonObject } from "../gemini/wire-types";
import type { ResponseContext } from "../provider-adapter";

/** The `:predict` body for an OpenAI embeddings body. */
export function predictBody(body: JsonObject): JsonObject {
  const instances = embeddingInputs(body.input).map((content) => ({ content }));
  const dimensions =
    typeof body.dimensions === "number" && Number.isInteger(body.dimensions) && body.dimensions > 0 ? body.dimensions : undefined;
  return dimensions === undefined ? { instances } : { instances, parameters: { outputDimensionality: dimensions } };
}

/** Token ids (OpenAI's tokenizer's) mean nothing to Google's models: a request this path cannot serve. */
function embeddingInputs(input: unknown): string[] {
  if (typeof input === "string") return [input];
  if (Array.isArray(input) && input.every((item) => typeof item === "string")) return input;
  throw invalidRequest("unsupported_input", "This model takes embeddings input as a string or an array of strings, not token ids.");
}

/** The predictions as an OpenAI embeddings list with float vectors, usage included when Vertex counted the tokens. */
export function predictEmbeddingsList(json: unknown, context: ResponseContext): JsonObject {
  const data = predictionsOf(json).map((prediction, index) => {
    const values = isObject(prediction.embeddings) ? prediction.embeddings.values : undefined;
    if (!Array.isArray(values) || !values.every((value) => typeof value === "number"))
      throw new Error("vertex: a prediction has no values");
    return { object: "embedding", index, embedding: values };
  });
  const list: JsonObject = { object: "list", data, model: context.model };
  const usage = predictUsage(json);
  if (usage) list.usage = { prompt_tokens: usage.inputTokens, total_tokens: usage.inputTokens };
  return list;
}

/** The sum of the predictions' `statistics.token_count`; undefined when none reports one. */
export function predictUsage(json: unknown): UsageRecord | undefined {
  let counted = false;
  let tokens = 0;
  for (const prediction of isObject(json) && Array.isArray(json.predictions) ? json.predictions.filter(isObject) : []) {
    const statistics = isObject(prediction.embeddings) ? prediction.embeddings.statistics : undefined;
    const count = isObject(statistics) ? tokenCount(statistics.token_count) : undefined;
    if (count === undefined) continue;
    counted = true;
    tokens += count;
  }
  return counted ? usageRecord({ inputTokens: tokens, outputTokens: 0 }) : undefined;
}

function predictionsOf(json: unknown): JsonObject[] {
  if (!isObject(json) || !Array.isArray(json.predictions)) throw new Error("vertex: the body is not a predict answer");
  return json.predictions.filter(isObject);
}
