// One configured upstream provider (config.ts reads them from the environment).
export type ProviderProtocol = "openai-compatible" | "anthropic" | "gemini" | "bedrock" | "vertex" | "azure";

export interface ProviderConfig {
  /** Provider name used by the catalogue's access paths, e.g. "openai", "bedrock", "bedrock-eu". */
  name: string;
  /** Base URL including the version prefix, e.g. https://api.openai.com/v1 (a cloud's is derived from its region, project or resource unless set). */
  baseUrl: string;
  /** The wire protocol its adapter speaks (<NAME>_PROTOCOL; known names have a default). */
  protocol: ProviderProtocol;
  /** Request fields forwarded beyond the protocol's own (<NAME>_EXTRA_FIELDS, comma-separated; OpenRouter's extras by default). */
  extraFields: string[];
  /** An OpenAI-compatible upstream that serves `POST /responses` itself (<NAME>_RESPONSES_API; true for `openai` only): Responses clients pass through. */
  responsesApi: boolean;
  /** The clouds' own settings (docs/providers.md); absent for the other protocols. */
  cloud?: CloudSettings;
}

/** Where a cloud path is and how it authenticates (<NAME>_REGION, <NAME>_PROJECT, ...). */
export interface CloudSettings {
  /** Bedrock: the AWS region (<NAME>_REGION, else AWS_REGION, else us-east-1). Vertex: the location (<NAME>_LOCATION, default `global`). Azure: none (the resource places it). */
  region?: string;
  /** Vertex: the Google Cloud project (<NAME>_PROJECT). */
  project?: string;
  /** Azure: the `api-version` of the deployments form (<NAME>_API_VERSION); the v1 form needs none. */
  apiVersion?: string;
  /** Azure: `deployments` (`/openai/deployments/{deployment}/...`) or `v1` (`/openai/v1/...`, the deployment as `model`). */
  apiForm?: "deployments" | "v1";
  /** A static credential from the environment (Bedrock's AWS_BEARER_TOKEN_BEDROCK, Azure's <NAME>_API_KEY); absent, the cloud's credential chain. */
  apiKey?: string;
  /** Vertex: a service-account key file for this provider (<NAME>_CREDENTIALS_FILE), else Application Default Credentials. */
  credentialsFile?: string;
}
