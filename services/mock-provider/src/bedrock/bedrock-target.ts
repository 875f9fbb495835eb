// Which Bedrock operation a path asks for: `/bedrock/model/{modelId}/{operation}`,
// the model id one percent-encoded path segment (`:` raw or %3A, an ARN's `/` as %2F),
// and which family of model it names.

export type BedrockOperation = "converse" | "converse-stream" | "invoke" | "invoke-with-response-stream";

const OPERATIONS = new Set<string>(["converse", "converse-stream", "invoke", "invoke-with-response-stream"]);

/** `{modelId (decoded), operation}`, or undefined for a path no operation has (a raw `/` in an ARN, say). */
export function bedrockTarget(url: string): { modelId: string; operation: BedrockOperation } | undefined {
  const match = /^\/bedrock\/model\/([^/]+)\/([a-z-]+)$/.exec(url.split("?")[0] ?? "");
  if (!match || !OPERATIONS.has(match[2]!)) return undefined;
  try {
    return { modelId: decodeURIComponent(match[1]!), operation: match[2] as BedrockOperation };
  } catch {
    return undefined;
  }
}

/** The cross-region inference-profile prefixes in front of a base model id. */
const PROFILE_PREFIX = /^(?:us|eu|apac|jp|au|global)\./;

/** The base model id: without a profile prefix; an ARN's resource part. */
function baseModelId(modelId: string): string {
  const bare = modelId.startsWith("arn:") ? modelId.slice(modelId.lastIndexOf("/") + 1) : modelId;
  return bare.replace(PROFILE_PREFIX, "");
}

export type ModelFamily = "claude" | "titan-embed" | "cohere-embed" | "other";

/** ARNs other than a foundation model's or a system profile's say nothing of the model: taken as Claude's. */
export function modelFamily(modelId: string): ModelFamily {
  const base = baseModelId(modelId);
  if (base.startsWith("anthropic.") || (modelId.startsWith("arn:") && !base.includes("."))) return "claude";
  if (base.startsWith("amazon.titan-embed-text")) return "titan-embed";
  if (base.startsWith("cohere.embed-")) return "cohere-embed";
  return "other";
}

/** The Anthropic model name InvokeModel answers with: `anthropic.claude-sonnet-4-20250514-v1:0` -> `claude-sonnet-4-20250514`. */
export function anthropicModelName(modelId: string, recorded: string): string {
  const base = baseModelId(modelId);
  if (!base.startsWith("anthropic.")) return recorded;
  return base.slice("anthropic.".length).replace(/-v\d+(?::\d+)?$/, "");
}
