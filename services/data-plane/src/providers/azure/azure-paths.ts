// Where an Azure OpenAI call goes under the resource's base URL (…/openai). The
// deployments form names the deployment in the path and needs an api-version;
// the v1 form is OpenAI's own paths under /v1, with the deployment as `model`.
export type AzureApiForm = "deployments" | "v1";

/** The latest GA api-version of the deployments form (the data plane's default as well). */
export const DEFAULT_API_VERSION = "2024-10-21";

export interface AzureTarget {
  apiForm: AzureApiForm;
  /** The deployments form's `api-version`; the v1 form sends none. */
  apiVersion: string;
}

/**
 * The Azure path for an OpenAI operation path ("/chat/completions", "/embeddings", "/responses"):
 * `/deployments/{deployment}{operation}?api-version=V`, or `/v1{operation}`.
 */
export function azurePath(target: AzureTarget, operation: string, deployment: string): string {
  if (target.apiForm === "v1") return `/v1${operation}`;
  return `/deployments/${encodeURIComponent(deployment)}${operation}?api-version=${encodeURIComponent(target.apiVersion)}`;
}
