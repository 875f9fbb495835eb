// embedContent / batchEmbedContents: one vector per content, its values the
// recorded ones repeated (or cut) to the requested length: outputDimensionality,
// else the model's default (3072 for gemini-embedding-001, 768 for the older models).
import { isRecord, type Json } from "./json";

export class GeminiRequestError extends Error {}

const MAX_DIMENSIONS = 3072;
const SMALL_MODELS = new Set(["text-embedding-004", "embedding-001"]);

export function defaultDimensions(model: string): number {
  return SMALL_MODELS.has(model) ? 768 : MAX_DIMENSIONS;
}

/** `length` values cycling through the recorded ones. */
export function stretch(recorded: readonly number[], length: number): number[] {
  return Array.from({ length }, (_, i) => recorded[i % recorded.length] as number);
}

function dimensionsOf(entry: Json, model: string, where: string): number {
  const asked = entry.outputDimensionality ?? entry.output_dimensionality;
  if (asked === undefined) return defaultDimensions(model);
  if (typeof asked !== "number" || !Number.isInteger(asked) || asked < 1 || asked > MAX_DIMENSIONS) {
    throw new GeminiRequestError(`* ${where}.output_dimensionality: must be an integer between 1 and ${MAX_DIMENSIONS}\n`);
  }
  return asked;
}

function checkContent(entry: Json, where: string): void {
  const content = entry.content;
  if (!isRecord(content) || !Array.isArray(content.parts) || content.parts.length === 0) {
    throw new GeminiRequestError(`* ${where}.content: content is not specified\n`);
  }
}

export function embedContentResponse(body: Json, model: string, recorded: readonly number[]): Json {
  checkContent(body, "EmbedContentRequest");
  return { embedding: { values: stretch(recorded, dimensionsOf(body, model, "EmbedContentRequest")) } };
}

/** Entry i gets recorded vector i (cycling through the recorded ones). */
export function batchEmbedContentsResponse(body: Json, model: string, recorded: readonly (readonly number[])[]): Json {
  const requests = body.requests;
  if (!Array.isArray(requests) || requests.length === 0) {
    throw new GeminiRequestError("* BatchEmbedContentsRequest.requests: requests is not specified\n");
  }
  const embeddings = requests.map((entry: unknown, index) => {
    const where = `BatchEmbedContentsRequest.requests[${index}]`;
    if (!isRecord(entry)) throw new GeminiRequestError(`* ${where}: must be an object\n`);
    checkContent(entry, where);
    const vector = recorded[index % recorded.length] ?? [];
    return { values: stretch(vector, dimensionsOf(entry, model, where)) };
  });
  return { embeddings };
}
