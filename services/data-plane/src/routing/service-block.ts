// The optional `service` block of a request (docs/routing.md): validated here,
// never forwarded upstream. Unknown keys inside it are ignored.
import { invalidRequest } from "../errors";
import { isTier, type Tier } from "./resolve-model";

export interface ServiceBlock {
  tier: Tier | undefined;
  purpose: string | undefined;
  allow: string[] | undefined;
  route: "fallback" | "pinned" | string[];
  /**
   * Access paths (the catalogue's provider names: `anthropic`, `bedrock`, `vertex`...) in the caller's
   * order of preference: when given, a model is served only through these, in this order.
   */
  paths: string[] | undefined;
  /** The caller's name for the conversation this request is a turn of: its turns keep to one model and path (docs/routing.md, "Affinity"). */
  session?: string;
}

/** The longest `service.session` accepted: an id, not a payload. */
export const SESSION_MAX_LENGTH = 256;

/**
 * Distinct entries `service.route`, `service.allow` and `service.paths` may each hold: routing looks
 * every one up per request, so a caller's list is bounded (100,000 entries took seconds of the event loop).
 */
export const SERVICE_LIST_LIMIT = 32;

const invalid = (message: string) => invalidRequest("invalid_service", message);

const ROUTE_SHAPE = 'service.route must be "fallback", "pinned" or a non-empty array of model ids.';
const ALLOW_SHAPE = "service.allow must be an array of non-empty strings.";
const PATHS_SHAPE = "service.paths must be a non-empty array of access path names.";

/**
 * A list of non-empty strings, duplicates removed (the first spelling kept; `key` says which are the
 * same), or the refusal: not such a list, or more than SERVICE_LIST_LIMIT distinct entries. Stops at
 * the first fault, so a long list costs no more than reading it.
 */
function distinctStrings(value: unknown, field: string, shape: string, key: (item: string) => string): string[] {
  if (!Array.isArray(value)) throw invalid(shape);
  const seen = new Map<string, string>();
  for (const item of value) {
    if (typeof item !== "string" || item.length === 0) throw invalid(shape);
    const same = key(item);
    if (seen.has(same)) continue;
    if (seen.size === SERVICE_LIST_LIMIT) throw invalid(`${field} may hold at most ${SERVICE_LIST_LIMIT} distinct entries.`);
    seen.set(same, item);
  }
  return [...seen.values()];
}

export function parseServiceBlock(value: unknown): ServiceBlock | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "object" || Array.isArray(value)) throw invalid("service must be an object.");
  const block = value as Record<string, unknown>;
  if (block.tier !== undefined && (typeof block.tier !== "string" || !isTier(block.tier))) {
    throw invalid("service.tier must be one of economy, balanced, quality.");
  }
  if (block.purpose !== undefined && typeof block.purpose !== "string") throw invalid("service.purpose must be a string.");
  // Patterns match case-insensitively (select-candidates.ts allowedBy), so `OpenAI` and `openai` are one entry.
  const allow =
    block.allow === undefined ? undefined : distinctStrings(block.allow, "service.allow", ALLOW_SHAPE, (item) => item.toLowerCase());
  const route = block.route ?? "fallback";
  if (route !== "fallback" && route !== "pinned" && (!Array.isArray(route) || route.length === 0)) throw invalid(ROUTE_SHAPE);
  // Provider names are lower case in the catalogue; `Bedrock` and `bedrock` are one entry. An empty list would match nothing.
  if (Array.isArray(block.paths) && block.paths.length === 0) throw invalid(PATHS_SHAPE);
  const paths =
    block.paths === undefined || block.paths === null
      ? undefined
      : distinctStrings(block.paths, "service.paths", PATHS_SHAPE, (item) => item.toLowerCase());
  const session = block.session ?? undefined;
  if (session !== undefined && (typeof session !== "string" || session.length === 0 || session.length > SESSION_MAX_LENGTH)) {
    throw invalid(`service.session must be a non-empty string of at most ${SESSION_MAX_LENGTH} characters.`);
  }
  return {
    ...(session === undefined ? {} : { session }),
    tier: block.tier as Tier | undefined,
    purpose: block.purpose as string | undefined,
    allow,
    route: Array.isArray(route) ? distinctStrings(route, "service.route", ROUTE_SHAPE, (item) => item) : route,
    paths,
  };
}
