// Where a model lives on Vertex AI: every call names the project, the location
// and the model's publisher in its path, under the provider's base URL
// (`https://{location}-aiplatform.googleapis.com/v1`, or the bare host for `global`).

/** Google's own models (Gemini, the text embedding models) and Anthropic's Claude. */
export type VertexPublisher = "google" | "anthropic";

/** Where the provider's calls go: the settings its paths are built from. */
export interface VertexPlace {
  project: string;
  location: string;
}

/** The model id says whose it is: `claude-…` is Anthropic's, everything else Google's. */
export function publisherOf(upstreamModel: string): VertexPublisher {
  return upstreamModel.startsWith("claude-") ? "anthropic" : "google";
}

/**
 * `/projects/{project}/locations/{location}/publishers/{publisher}/models/{model}:{method}`; the method
 * may carry a query (`streamGenerateContent?alt=sse`). The model is one path segment whatever the
 * catalogue holds (a `/`, `?` or `..` cannot reach another path); Claude's `@` stays as written, as
 * Google's own clients send it (`claude-sonnet-4@20250514`).
 */
export function vertexModelPath(place: VertexPlace, publisher: VertexPublisher, model: string, method: string): string {
  return `/projects/${encodeURIComponent(place.project)}/locations/${encodeURIComponent(place.location)}/publishers/${publisher}/models/${encodeURIComponent(model).replaceAll("%40", "@")}:${method}`;
}
