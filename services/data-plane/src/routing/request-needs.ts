// What a chat request needs from a model, read from its body.
import { countImageParts } from "../billing/hold-estimate";

export interface RequestNeeds {
  tools: boolean;
  jsonSchema: boolean;
  imageInput: boolean;
  imageOutput: boolean;
  /** Context the request needs: its estimated input tokens (about 4 bytes each) plus the output it asks for. */
  contextTokens: number;
}

export function requestNeeds(body: Record<string, unknown>, estimatedInputTokens: number): RequestNeeds {
  const format = body.response_format as { type?: unknown } | undefined;
  const modalities = Array.isArray(body.modalities) ? body.modalities : [];
  const maxOutput = [body.max_completion_tokens, body.max_tokens].filter((value): value is number => typeof value === "number" && value > 0);
  return {
    tools: Array.isArray(body.tools) && body.tools.length > 0,
    jsonSchema: format?.type === "json_schema",
    imageInput: countImageParts(body.messages) > 0,
    imageOutput: modalities.includes("image"),
    contextTokens: estimatedInputTokens + (maxOutput.length > 0 ? Math.max(...maxOutput) : 0),
  };
}
