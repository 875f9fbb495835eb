// What a chat body may not name, on every path: a stored file (`file` parts by `file_id`), a media
// URL of a provider's storage (provider-storage.ts), an earlier audio answer by id (an assistant's
// `audio.id`, kept by OpenAI for multi-turn audio), a custom voice by id (`audio.voice: {id}`).
// Each is a resource of the operator's provider account, which the gateway calls with its key:
// 400 unsupported_input naming the part.
import { invalidRequest } from "../../errors";
import { requireClientMediaUrl, storedFileRefused } from "../provider-storage";

type JsonObject = Record<string, unknown>;

const isObject = (value: unknown): value is JsonObject => typeof value === "object" && value !== null && !Array.isArray(value);
const present = (value: unknown) => value !== undefined && value !== null;

export function refuseProviderResources(body: JsonObject, messages: unknown[]): void {
  if (isObject(body.audio) && isObject(body.audio.voice))
    throw invalidRequest(
      "unsupported_input",
      "audio.voice: a custom voice by id is not supported. Custom voices belong to the provider account the gateway calls with, not to your key; name a built-in voice.",
    );
  messages.forEach((message, index) => {
    if (!isObject(message)) return;
    if (isObject(message.audio) && present(message.audio.id))
      throw invalidRequest(
        "unsupported_input",
        `messages[${index}].audio: an earlier audio answer by id is not supported. It is kept by the provider account the gateway calls with, not by your key; send its transcript as the message's content.`,
      );
    if (!Array.isArray(message.content)) return;
    message.content.forEach((part, partIndex) => {
      if (!isObject(part)) return;
      const at = `messages[${index}].content[${partIndex}]`;
      if (part.type === "file" && isObject(part.file) && present(part.file.file_id)) throw storedFileRefused(at);
      if (part.type === "image_url") {
        const url = isObject(part.image_url) ? part.image_url.url : part.image_url;
        if (typeof url === "string") requireClientMediaUrl(url, `${at}.image_url`);
      }
    });
  });
}
