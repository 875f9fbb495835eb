// Vertex AI's `:predict` on Google's text embedding models (text-embedding-005,
// text-multilingual-embedding-002, gemini-embedding-001): `{"instances":[{"content"}],
// "parameters":{"outputDimensionality"}}` -> one prediction per instance with its
// values and `statistics.token_count`, as Vertex's embeddings reference documents it.
// No live answer was recorded: the form is constructed from the published one, the
// values are the Gemini API recording's, stretched to the dimensions asked.
import { GeminiRequestError, stretch } from "../gemini-embeddings";
import { isRecord, type Json } from "../json";
import type { TokenCounts } from "../usage";

const MAX_DIMENSIONS = 3072;
/** text-embedding-005 and text-multilingual-embedding-002 answer 768 values unless asked for fewer. */
const TEXT_EMBEDDING_DIMENSIONS = 768;
/** Vertex's per-call instance limit for the text embedding models; gemini-embedding-001 takes one. */
const MAX_INSTANCES = 250;
const SINGLE_INSTANCE_MODELS = new Set(["gemini-embedding-001"]);

/** About four characters a token, at least one: the mock's stand-in for Google's tokenizer. */
const tokensOf = (content: string) => Math.max(1, Math.ceil(content.length / 4));

export function predictEmbeddingsResponse(body: Json, model: string, recorded: readonly number[], usage?: TokenCounts): Json {
  const instances = body.instances;
  if (!Array.isArray(instances) || instances.length === 0) throw new GeminiRequestError("instances: must not be empty");
  const limit = SINGLE_INSTANCE_MODELS.has(model) ? 1 : MAX_INSTANCES;
  if (instances.length > limit) {
    throw new GeminiRequestError(`Unable to submit request because the model supports up to ${limit} instances per request.`);
  }
  const dimensions = dimensionsOf(body.parameters, model);
  const contents = instances.map((instance: unknown, index) => {
    if (!isRecord(instance) || typeof instance.content !== "string")
      throw new GeminiRequestError(`instances[${index}].content: must be a string`);
    return instance.content;
  });
  // A scripted prompt_tokens goes to the first instance, so a test can fix the billed count.
  const predictions = contents.map((content, index) => ({
    embeddings: {
      statistics: { truncated: false, token_count: index === 0 && usage ? usage.prompt_tokens : tokensOf(content) },
      values: stretch(recorded, dimensions),
    },
  }));
  return { predictions, metadata: { billableCharacterCount: contents.reduce((sum, content) => sum + content.length, 0) } };
}

function dimensionsOf(parameters: unknown, model: string): number {
  const asked = isRecord(parameters) ? parameters.outputDimensionality : undefined;
  if (asked === undefined) return model.startsWith("gemini-embedding") ? MAX_DIMENSIONS : TEXT_EMBEDDING_DIMENSIONS;
  if (typeof asked !== "number" || !Number.isInteger(asked) || asked < 1 || asked > MAX_DIMENSIONS) {
    throw new GeminiRequestError(`parameters.outputDimensionality: must be an integer between 1 and ${MAX_DIMENSIONS}`);
  }
  return asked;
}
