// What in a request would name something kept in the operator's provider accounts: a stored file
// (an OpenAI or Anthropic `file_id`), a Gemini Files API file or a Cloud Storage object given as a
// media URL (Gemini reads those with the operator's key as `fileData.fileUri`), an earlier audio
// answer by id. The gateway calls every provider with the operator's key, so any tenant could point a
// model at them: each dialect refuses them on every path with 400 unsupported_input naming the part
// (docs/dialects/README.md, "Provider storage").
import { echo } from "@gateway/proto";
import { invalidRequest } from "../errors";

/** Hosts whose URLs name resources of a provider account: Gemini's Files API (`.../v1beta/files/<id>`). */
const STORAGE_HOSTS: ReadonlySet<string> = new Set(["generativelanguage.googleapis.com"]);

/**
 * Whether a media URL may be sent on: a data: URL, or an http(s) URL that is not on a provider's
 * storage host. Any other scheme (`gs://`, a bare `files/<id>` resource name, ...) is something only
 * the provider could resolve, in the operator's account; no API the gateway speaks takes them from
 * a client either (OpenAI and Anthropic fetch https and read data: URLs only).
 */
export function isClientMediaUrl(url: string): boolean {
  if (/^data:/i.test(url)) return true;
  if (!/^https?:\/\//i.test(url)) return false;
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase().replace(/\.$/, "");
  } catch {
    return false; // nothing can tell what it names
  }
  return !STORAGE_HOSTS.has(host);
}

const INLINE_INSTEAD = "Send the content inline (base64 or a data: URL) or by a public https URL.";

/** A part naming a stored file by id. */
export const storedFileRefused = (path: string) =>
  invalidRequest(
    "unsupported_input",
    `${path}: a file_id is not supported. Files are stored resources of the provider account the gateway calls with, not of your key. ${INLINE_INSTEAD}`,
  );

/** A media URL `isClientMediaUrl` refuses. */
export const storageUrlRefused = (path: string, url: string) =>
  invalidRequest(
    "unsupported_input",
    `${path}: ${echo(url)} is not an https or data: URL. A provider's storage (Gemini's Files API, gs:// Cloud Storage) belongs to the provider account the gateway calls with, not to your key. ${INLINE_INSTEAD}`,
  );

/** Throws storageUrlRefused for a URL that is not a client's to send. */
export function requireClientMediaUrl(url: string, path: string): void {
  if (!isClientMediaUrl(url)) throw storageUrlRefused(path, url);
}
