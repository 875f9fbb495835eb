// Which Vertex call a URL is: the persona's gate and its routes read it alike.

/** The fake OAuth2 token endpoint (a service-account key file's token_uri points here). */
export const VERTEX_TOKEN_PATH = "/vertex/token";
const GEMINI_METHODS = new Set(["generateContent", "streamGenerateContent", "predict"]);
const CLAUDE_METHODS = new Set(["rawPredict", "streamRawPredict"]);
/** The `anthropic_version` Claude's Vertex routes require in the body. */
export const VERTEX_ANTHROPIC_VERSION = "vertex-2023-10-16";

/** `{publisher, model, method}` of a Vertex model call this persona serves, else undefined. */
export function vertexTarget(url: string): { publisher: string; model: string; method: string } | undefined {
  const match = /^\/vertex\/v1\/projects\/[^/]+\/locations\/[^/]+\/publishers\/(google|anthropic)\/models\/([^/:]+):([A-Za-z]+)$/.exec(
    url.split("?")[0]!,
  );
  if (!match) return undefined;
  const [, publisher, model, method] = match as unknown as [string, string, string, string];
  const served = publisher === "google" ? GEMINI_METHODS : CLAUDE_METHODS;
  return served.has(method) ? { publisher, model: decodeURIComponent(model), method } : undefined;
}
