// Which conversation a chat request is a turn of, for affinity (docs/routing.md, "Affinity"): the
// caller's own name for it when it gives one, else its stable prefix, so agents that send nothing
// still keep to one model and path. Scoped to the project: one tenant's names never reach another's pins.
import { hash } from "node:crypto";
import type { ClientRequest } from "../dialects/client-dialect";

/** The header a caller may name its conversation with, when its client cannot add a body field. */
export const SESSION_HEADER = "x-service-session";
/** The most of a request's stable prefix (tools, system, first message, as JSON) that identifies its conversation. */
export const PREFIX_BYTES = 16_384;
/** A caller's name for a conversation is cut to this before hashing (the header's is not validated as the body's is). */
const NAME_LIMIT = 256;

export type ConversationSource = "prompt_cache_key" | "metadata.user_id" | "service.session" | "header" | "prefix";

export interface Conversation {
  /** The pin's key: a hash of the project, the source and the name. */
  key: string;
  source: ConversationSource;
}

const named = (value: unknown): string | undefined =>
  typeof value === "string" && value.length > 0 ? value.slice(0, NAME_LIMIT) : undefined;

/** The caller's own name for the conversation, and where it was found; body fields before the header. */
function callerName(
  dialect: string,
  request: ClientRequest,
  headers: Readonly<Record<string, unknown>>,
): [ConversationSource, string] | undefined {
  const { body, original, service } = request;
  const cacheKey = named(original.prompt_cache_key) ?? named(body.prompt_cache_key);
  if (cacheKey) return ["prompt_cache_key", cacheKey];
  const metadata = original.metadata;
  // Anthropic's metadata.user_id (Claude Code puts its session there); OpenAI's metadata is free-form and not read.
  const userId = typeof metadata === "object" && metadata !== null ? named((metadata as Record<string, unknown>).user_id) : undefined;
  if (userId && dialect === "anthropic-messages") return ["metadata.user_id", userId];
  if (service?.session) return ["service.session", service.session];
  const header = headers[SESSION_HEADER];
  const fromHeader = named(Array.isArray(header) ? header[0] : header);
  return fromHeader ? ["header", fromHeader] : undefined;
}

/**
 * The stable prefix of a chat request in the shared form: its tools, its leading system messages and
 * its first other message, which every later turn repeats. Two conversations that share it share a
 * provider's cache of it too, so sharing their pin is what a cache wants.
 */
function stablePrefix(body: Record<string, unknown>): string | undefined {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const firstOther = messages.findIndex((message) => {
    const role = (message as { role?: unknown } | null)?.role;
    return role !== "system" && role !== "developer";
  });
  if (firstOther < 0) return undefined;
  return JSON.stringify([body.tools ?? null, messages.slice(0, firstOther + 1)]).slice(0, PREFIX_BYTES);
}

/** The conversation a chat request is a turn of; undefined for other operations or a request with no message. */
export function conversationOf(
  projectId: string,
  dialect: string,
  request: ClientRequest,
  headers: Readonly<Record<string, unknown>>,
): Conversation | undefined {
  if (request.operation !== "chat") return undefined;
  const name = callerName(dialect, request, headers);
  const [source, value] = name ?? ["prefix", stablePrefix(request.body)];
  if (value === undefined) return undefined;
  // One-shot hashing: a hash object per request costs more than the digest itself.
  return { key: hash("sha256", `${projectId}\0${source}\0${value}`, "base64url").slice(0, 32), source };
}
