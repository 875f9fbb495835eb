// Catalogue files as the admin API takes them, for integration tests: a
// verified price, an access path, a chat model on every tier, an embeddings
// model, and a whole catalogue with the embeddings default it needs.
export const price = (input: string, output: string, extra: Record<string, string> = {}) => ({
  input_per_m: input,
  output_per_m: output,
  ...extra,
  verified: true,
  source: "test",
});

export const accessPath = (provider: string, upstream: string, credentials: string, cost: Record<string, unknown> = price("1", "2")) => ({
  provider,
  upstream_model: upstream,
  credentials,
  price: cost,
});

export function chatModel(id: string, paths: unknown[], extra: Record<string, unknown> = {}) {
  return {
    id,
    tiers: ["economy", "balanced", "quality"],
    purposes: ["chat"],
    owned_by: id.split("/")[0],
    created: 1_700_000_000,
    context_length: 200_000,
    max_output_tokens: 8_192,
    input_modalities: ["text", "image"],
    output_modalities: ["text"],
    capabilities: { tools: true, json_schema: true },
    paths,
    ...extra,
  };
}

export const embeddingsModel = (id: string, paths: unknown[]) => ({
  id,
  owned_by: id.split("/")[0],
  created: 1_700_000_000,
  context_length: 8_192,
  max_output_tokens: 0,
  input_modalities: ["text"],
  output_modalities: ["embeddings"],
  capabilities: { embeddings: true },
  paths,
});

const EMBEDDINGS_DEFAULT = "openai/text-embedding-3-small";

/** A catalogue of these chat models, with the embeddings default every catalogue needs. */
export const catalogueOf = (models: unknown[]) => ({
  version: 1,
  defaults: { embeddings: EMBEDDINGS_DEFAULT },
  models: [
    ...models,
    embeddingsModel(EMBEDDINGS_DEFAULT, [accessPath("openai", "text-embedding-3-small", "OPENAI_API_KEY", price("0.02", "0"))]),
  ],
});
