// Media in OpenAI message parts (image URLs, audio, files) as Gemini parts.
// Gemini takes bytes inline (`inlineData`, base64) or a reference it fetches
// itself (`fileData.fileUri`); a data: URL is always sent inline, anything else
// by reference, so the upstream, not the gateway, reads remote media.
import { requireClientMediaUrl } from "../../dialects/provider-storage";
import type { GeminiPart } from "./wire-types";

/** File extensions of media Gemini accepts by reference, for the optional `fileData.mimeType`. */
const MIME_BY_EXTENSION: Record<string, string> = {
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  webp: "image/webp",
  gif: "image/gif",
  heic: "image/heic",
  heif: "image/heif",
  pdf: "application/pdf",
  mp3: "audio/mp3",
  wav: "audio/wav",
  mp4: "video/mp4",
};

/** A data: URL as a base64 `inlineData` part; undefined when the URL is not a data: URL. */
export function inlinePartFromDataUrl(url: string): GeminiPart | undefined {
  const match = /^data:([^,]*),(.*)$/s.exec(url);
  if (!match) return undefined;
  const [mediaType = "", ...parameters] = (match[1] ?? "").split(";");
  const payload = match[2] ?? "";
  // Percent-encoded (non-base64) data URLs are rare for media but legal; Gemini only takes base64.
  const data = parameters.includes("base64") ? payload : Buffer.from(percentDecode(payload), "utf8").toString("base64");
  // An absent media type is left for the upstream to refuse rather than guessed.
  return { inlineData: { mimeType: mediaType || "application/octet-stream", data } };
}

/** A malformed escape is kept as written rather than failing the whole request. */
function percentDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * An `image_url` as a Gemini part: inline for data: URLs, else a reference
 * that always says it is an image (the type guessed from the extension, else
 * image/jpeg); a provider-storage URI is refused (400). Never another type: Gemini would fetch and process a video or
 * a YouTube link behind an "image" URL, at a cost far beyond the hold's
 * allowance per image, which the gateway would absorb.
 */
export function mediaPartFromUrl(url: string, path: string): GeminiPart {
  const inline = inlinePartFromDataUrl(url);
  if (inline) return inline;
  // Gemini resolves a Files API or gs:// URI in the operator's account: never one a client sent.
  // The dialects refuse them first; this keeps the codec safe on its own.
  requireClientMediaUrl(url, path);
  const guessed = guessMimeType(url);
  return { fileData: { fileUri: url, mimeType: guessed?.startsWith("image/") ? guessed : "image/jpeg" } };
}

function guessMimeType(url: string): string | undefined {
  let pathname: string;
  try {
    pathname = new URL(url).pathname;
  } catch {
    return undefined;
  }
  const extension = /\.([a-z0-9]+)$/i.exec(pathname)?.[1]?.toLowerCase();
  return extension && Object.hasOwn(MIME_BY_EXTENSION, extension) ? MIME_BY_EXTENSION[extension] : undefined;
}

/** OpenAI `input_audio` ({data: base64, format: "wav" | "mp3"}) as inline audio. */
export function audioPart(data: string, format: string): GeminiPart {
  return { inlineData: { mimeType: `audio/${format || "wav"}`, data } };
}
