// What a Bedrock model id says: which operation family serves it, and how it
// goes into the request path. Ids come bare (`anthropic.claude-sonnet-4-20250514-v1:0`),
// as cross-region inference profiles (`eu.anthropic.claude-sonnet-4-6`) or as ARNs.

/** The cross-region inference-profile prefixes in front of a base model id. */
const PROFILE_PREFIX = /^(?:us|eu|apac|jp|au|global)\./;

/** The base model id, without an inference-profile prefix; an ARN's resource part (after its last `/`). */
function baseModelId(modelId: string): string {
  const bare = modelId.startsWith("arn:") ? modelId.slice(modelId.lastIndexOf("/") + 1) : modelId;
  return bare.replace(PROFILE_PREFIX, "");
}

/**
 * Claude, served through InvokeModel with the Anthropic Messages body. An ARN says which model it runs
 * only for a foundation model or a system inference profile; any other ARN (an application profile, a
 * provisioned model) names a Claude deployment only by convention, so ARNs are taken as Claude, the one
 * family the gateway routes through ARNs.
 */
export function isClaudeModel(modelId: string): boolean {
  if (modelId.startsWith("arn:")) {
    const base = baseModelId(modelId);
    return base.startsWith("anthropic.") || !base.includes(".");
  }
  return baseModelId(modelId).startsWith("anthropic.");
}

/** Amazon Titan text embeddings (`amazon.titan-embed-text-v1`, `-v2:0`): one input per call. */
export const isTitanEmbeddings = (modelId: string): boolean => baseModelId(modelId).startsWith("amazon.titan-embed-text");

/** Cohere embeddings (`cohere.embed-english-v3`, `cohere.embed-multilingual-v3`, ...): several inputs per call. */
export const isCohereEmbeddings = (modelId: string): boolean => baseModelId(modelId).startsWith("cohere.embed-");

export type BedrockOperation = "converse" | "converse-stream" | "invoke" | "invoke-with-response-stream";

/** `/model/{modelId}/{operation}`, the id percent-encoded as one path segment (`:` as %3A, an ARN's `/` as %2F). */
export function modelPath(modelId: string, operation: BedrockOperation): string {
  return `/model/${encodeURIComponent(modelId)}/${operation}`;
}
