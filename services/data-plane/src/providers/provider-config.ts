// One configured upstream provider (config.ts reads them from the environment).
export type ProviderProtocol = "openai-compatible" | "anthropic" | "gemini";

export interface ProviderConfig {
  /** Provider name used by the catalogue's access paths, e.g. "openai". */
  name: string;
  /** Base URL including the version prefix, e.g. https://api.openai.com/v1. */
  baseUrl: string;
  /** The wire protocol its adapter speaks (<NAME>_PROTOCOL; known names have a default). */
  protocol: ProviderProtocol;
  /** Request fields forwarded beyond the protocol's own (<NAME>_EXTRA_FIELDS, comma-separated; OpenRouter's extras by default). */
  extraFields: string[];
  /** An OpenAI-compatible upstream that serves `POST /responses` itself (<NAME>_RESPONSES_API; true for `openai` only): Responses clients pass through. */
  responsesApi: boolean;
}
