// OpenAI sampling and output options as a Gemini `generationConfig`. Only
// fields with a Gemini counterpart are read, and only when they have the type
// OpenAI documents; the rest is dropped, never an error.
import { isObject, type JsonObject } from "./wire-types";

const NUMERIC_FIELDS: [openAi: string, gemini: string][] = [
  ["temperature", "temperature"],
  ["top_p", "topP"],
  ["top_k", "topK"], // not OpenAI's, but callers used to other gateways send it
  ["n", "candidateCount"],
  ["seed", "seed"],
  ["presence_penalty", "presencePenalty"],
  ["frequency_penalty", "frequencyPenalty"],
];

export function generationConfig(body: JsonObject): JsonObject | undefined {
  const config: JsonObject = {};
  // max_completion_tokens is OpenAI's current name; max_tokens the older one (and the one the proxy sets when it caps an answer).
  const maxTokens = typeof body.max_completion_tokens === "number" ? body.max_completion_tokens : body.max_tokens;
  if (typeof maxTokens === "number") config.maxOutputTokens = maxTokens;
  for (const [openAi, gemini] of NUMERIC_FIELDS) {
    const value = body[openAi];
    if (typeof value === "number" && Number.isFinite(value)) config[gemini] = value;
  }
  const stop =
    typeof body.stop === "string"
      ? [body.stop]
      : Array.isArray(body.stop)
        ? body.stop.filter((item): item is string => typeof item === "string")
        : [];
  if (stop.length > 0) config.stopSequences = stop;
  Object.assign(config, responseFormat(body.response_format));
  const modalities = responseModalities(body.modalities);
  if (modalities) config.responseModalities = modalities;
  return Object.keys(config).length > 0 ? config : undefined;
}

/**
 * json_schema -> JSON output constrained by `responseJsonSchema`, Gemini's
 * JSON Schema field (it takes keys such as `$schema` and `additionalProperties`),
 * not `responseSchema`, which takes only the OpenAPI subset and refuses them.
 * json_object -> JSON output without a schema.
 */
function responseFormat(format: unknown): JsonObject {
  if (!isObject(format)) return {};
  if (format.type === "json_object") return { responseMimeType: "application/json" };
  if (format.type !== "json_schema") return {};
  const schema = isObject(format.json_schema) ? format.json_schema.schema : undefined;
  return isObject(schema) ? { responseMimeType: "application/json", responseJsonSchema: schema } : { responseMimeType: "application/json" };
}

/**
 * `modalities: ["image","text"]` -> `responseModalities: ["IMAGE","TEXT"]`, in
 * the caller's order.
 * Only asked for when an image is wanted: text alone is Gemini's default, and
 * OpenAI's "audio" output has no Gemini counterpart in this shape.
 */
function responseModalities(modalities: unknown): string[] | undefined {
  if (!Array.isArray(modalities) || !modalities.includes("image")) return undefined;
  return modalities.filter((modality) => modality === "image" || modality === "text").map((modality: string) => modality.toUpperCase());
}
