// OpenAI embeddings on Bedrock's embedding models, through InvokeModel:
//   Amazon Titan text (`amazon.titan-embed-text-*`): {inputText[, dimensions]} -> {embedding, inputTextTokenCount}.
//     One input per call: an array of several inputs would be several calls, which one upstream call
//     cannot be, so it is refused (400) rather than half answered.
//   Cohere (`cohere.embed-*`): {texts, input_type: "search_document"} -> {embeddings: [[...], ...]}.
//     Several inputs per call; the answer reports no token count (the proxy estimates it).
import type { UsageRecord } from "../../billing/pricing";
import { invalidRequest } from "../../errors";
import { isRecord, type JsonObject, tokenCount } from "../chat-usage";
import type { RequestContext, ResponseContext, UpstreamCall } from "../provider-adapter";
import { isTitanEmbeddings, modelPath } from "./bedrock-model-id";
import { bedrockJsonHeaders } from "./invoke-anthropic-call";

export function embeddingsCall(body: JsonObject, context: RequestContext): UpstreamCall {
  const inputs = textInputs(body.input);
  let request: JsonObject;
  if (isTitanEmbeddings(context.upstreamModel)) {
    if (inputs.length !== 1)
      throw invalidRequest("unsupported_input", "This model embeds one input per request: send `input` as a single string.", "input");
    request = { inputText: inputs[0] };
    if (typeof body.dimensions === "number" && Number.isInteger(body.dimensions) && body.dimensions > 0)
      request.dimensions = body.dimensions;
  } else {
    request = { texts: inputs, input_type: "search_document" };
  }
  return { path: modelPath(context.upstreamModel, "invoke"), headers: bedrockJsonHeaders(false), body: JSON.stringify(request) };
}

/** Text inputs; token ids (OpenAI's tokenizers' numbers) mean nothing to these models and are refused. */
function textInputs(input: unknown): string[] {
  if (typeof input === "string") return [input];
  if (Array.isArray(input) && input.length > 0 && input.every((item) => typeof item === "string")) return input;
  throw invalidRequest(
    "unsupported_input",
    "This model takes embeddings input as a string or an array of strings, not token ids.",
    "input",
  );
}

/** A Titan (`embedding`) or Cohere (`embeddings`) answer as an OpenAI embeddings list with float vectors. */
export function embeddingsList(json: unknown, context: ResponseContext): JsonObject {
  const vectors = isRecord(json)
    ? Array.isArray(json.embeddings)
      ? json.embeddings
      : Array.isArray(json.embedding)
        ? [json.embedding]
        : undefined
    : undefined;
  if (!vectors) throw new Error("bedrock: the body is not an embeddings answer");
  const data = vectors.map((vector, index) => {
    if (!Array.isArray(vector) || !vector.every((value) => typeof value === "number"))
      throw new Error("bedrock: an embedding is not a vector");
    return { object: "embedding", index, embedding: vector };
  });
  const list: JsonObject = { object: "list", data, model: context.model };
  const usage = embeddingsUsage(json);
  if (usage) list.usage = { prompt_tokens: usage.inputTokens, total_tokens: usage.inputTokens };
  return list;
}

/** Titan's `inputTextTokenCount`; Cohere reports none. */
export function embeddingsUsage(json: unknown): UsageRecord | undefined {
  const count = isRecord(json) ? tokenCount(json.inputTextTokenCount) : undefined;
  return count === undefined ? undefined : { inputTokens: count, outputTokens: 0 };
}
