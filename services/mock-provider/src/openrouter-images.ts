// Image output as OpenRouter returns it: `message.images` (non-stream) /
// `delta.images` (stream), each `{type: "image_url", image_url: {url: <data URL>}, index}`,
// shaped after openrouter.chat.image.response.json (its image replaced by a small valid PNG, see
// openrouter-fixtures.ts).
import { applyUsage } from "./usage";
import type { TokenCounts } from "./usage";
import type { Identity } from "./chat";
import { isRecord, type Json } from "./json";

/** OpenRouter's image-generation switch: `modalities` naming "image". */
export function wantsImage(body: Json): boolean {
  return Array.isArray(body.modalities) && body.modalities.includes("image");
}

/** The recorded image completion with this request's identity (and usage when scripted). */
export function imageCompletion(recorded: Json, identity: Identity, usage: TokenCounts | undefined): Json {
  const response: Json = { ...recorded, id: identity.id, created: identity.created, model: identity.model };
  if (usage) response.usage = applyUsage(recorded.usage, usage);
  return response;
}

/**
 * No image stream was recorded; this one carries the recorded message in the
 * shape of OpenRouter chunks: the images in the first delta, then the finish,
 * then (when asked for) the usage chunk.
 */
export function imageStreamChunks(recorded: Json, identity: Identity, includeUsage: boolean, usage: TokenCounts | undefined): Json[] {
  const choice = (recorded.choices as Json[])[0] ?? {};
  const message = isRecord(choice.message) ? choice.message : {};
  const base = { id: identity.id, object: "chat.completion.chunk", created: identity.created, model: identity.model };
  const chunks: Json[] = [
    {
      ...base,
      choices: [
        {
          index: 0,
          delta: { role: "assistant", content: message.content ?? "", images: message.images },
          finish_reason: null,
          logprobs: null,
        },
      ],
    },
    {
      ...base,
      choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: choice.finish_reason ?? "stop", logprobs: null }],
    },
  ];
  if (includeUsage) chunks.push({ ...base, choices: [], usage: applyUsage(recorded.usage, usage) });
  return chunks;
}
