// What a chat request needs from a model, read from its body.
/** Tokens an image is counted as for the context filter (its bytes say nothing about its tokens). */
const IMAGE_CONTEXT_TOKENS = 1_500;

/**
 * The messages' image parts (as billing/hold-estimate.ts countImageParts counts them) and the
 * characters of their inline data (data: URLs), in one walk.
 */
function imagesIn(messages: unknown): { parts: number; urlBytes: number } {
  const images = { parts: 0, urlBytes: 0 };
  if (!Array.isArray(messages)) return images;
  for (const message of messages) {
    const content = (message as { content?: unknown } | null)?.content;
    if (!Array.isArray(content)) continue;
    for (const part of content) {
      if (typeof part !== "object" || part === null) continue;
      if ((part as { type?: unknown }).type === "image_url") images.parts++;
      const url = (part as { image_url?: { url?: unknown } }).image_url?.url;
      if (typeof url === "string") images.urlBytes += url.length;
    }
  }
  return images;
}

/** The body asks for image output (`modalities` lists "image"). */
export function asksForImages(body: Record<string, unknown>): boolean {
  return Array.isArray(body.modalities) && body.modalities.includes("image");
}

export interface RequestNeeds {
  tools: boolean;
  jsonSchema: boolean;
  imageInput: boolean;
  imageOutput: boolean;
  /** Context the request needs: its estimated input tokens (text at about 4 bytes a token, a fixed count per image) plus the output it asks for. */
  contextTokens: number;
  /** The `service_tier` asked for, as sent: a path must price a named tier (billing/pricing.ts canPrice). */
  serviceTier: unknown;
}

/** @param bodyBytes the body's size as received; image data in it is counted per image, not per byte. */
export function requestNeeds(body: Record<string, unknown>, bodyBytes: number): RequestNeeds {
  const format = body.response_format as { type?: unknown } | undefined;
  const maxOutput = [body.max_completion_tokens, body.max_tokens].filter(
    (value): value is number => typeof value === "number" && value > 0,
  );
  const images = imagesIn(body.messages);
  const estimatedInputTokens = Math.ceil(Math.max(0, bodyBytes - images.urlBytes) / 4) + images.parts * IMAGE_CONTEXT_TOKENS;
  return {
    tools: Array.isArray(body.tools) && body.tools.length > 0,
    jsonSchema: format?.type === "json_schema",
    imageInput: images.parts > 0,
    imageOutput: asksForImages(body),
    contextTokens: estimatedInputTokens + (maxOutput.length > 0 ? Math.max(...maxOutput) : 0),
    serviceTier: body.service_tier,
  };
}
