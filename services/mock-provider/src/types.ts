// Public types of the mock provider: what a script can ask for and what the
// request log holds. Kept free of fastify types so tests and other services can
// import them without pulling in the server.

/** Ways a response can deliberately break, to exercise the gateway's failure paths. */
export type Fault =
  | "reset-before-headers"
  | "reset-mid-stream"
  | "stall-mid-stream"
  | "malformed-sse"
  | "error-event-mid-stream"
  | "anthropic-error-event-mid-stream"
  /** Azure persona: the completion is cut by the content filter (`finish_reason: "content_filter"`). */
  | "content-filter-mid-stream"
  /** Bedrock streams: half the events, then an exception message of that type (throttlingException, ...). */
  | "bedrock-throttling-mid-stream"
  | "bedrock-model-stream-error-mid-stream"
  | "bedrock-service-unavailable-mid-stream";

export const FAULTS: readonly Fault[] = [
  "reset-before-headers",
  "reset-mid-stream",
  "stall-mid-stream",
  "malformed-sse",
  "error-event-mid-stream",
  "anthropic-error-event-mid-stream",
  "content-filter-mid-stream",
  "bedrock-throttling-mid-stream",
  "bedrock-model-stream-error-mid-stream",
  "bedrock-service-unavailable-mid-stream",
];

/**
 * Usage override: fixed numbers, or "random" (prompt 1..200, completion 1..400).
 * `total_tokens` is always recomputed as the sum. The other figures go into each
 * vendor's own fields, as given, in its own meaning (README, "Usage details"):
 * `cached_tokens` cache reads; `cache_creation_tokens` 5-minute and
 * `cache_creation_1h_tokens` 1-hour cache writes; `reasoning_tokens`;
 * `web_search_requests` (Anthropic); `service_tier`, the tier the answer says it
 * was served at (OpenAI, OpenRouter, Responses, Anthropic).
 */
export type UsageScript =
  | "random"
  | {
      prompt_tokens: number;
      completion_tokens?: number;
      cached_tokens?: number;
      cache_creation_tokens?: number;
      cache_creation_1h_tokens?: number;
      reasoning_tokens?: number;
      web_search_requests?: number;
      service_tier?: string;
    };

/** How the mock should answer one request. Every field is optional; absent = as recorded. */
export interface Script {
  /** HTTP status; >= 400 sends the persona's error body instead of an answer. */
  status?: number;
  /**
   * Error body to send, by fixture name, e.g. "openai.error.429.rate_limit_exceeded" or
   * "anthropic.error.529.overloaded_error". Implies its status when `status` is absent.
   */
  errorFixture?: string;
  /**
   * Error body sent verbatim (as application/json, whatever it holds) instead of
   * the fixture or default one. The same script must set an error status
   * (`status` >= 400 or an `errorFixture`); ignored when the merged status is < 400.
   */
  errorBody?: string;
  /** Extra response headers (e.g. `retry-after`). */
  headers?: Record<string, string>;
  /** Delay before response headers are sent. */
  latencyMs?: number;
  /** Delay between stream events. */
  chunkDelayMs?: number;
  /**
   * Streams only: headers go out at once, the first event after this delay (a
   * slow first byte of the body, unlike `latencyMs`, which holds the headers).
   */
  firstChunkDelayMs?: number;
  usage?: UsageScript;
  fault?: Fault;
  /**
   * Non-stream chat/message/generateContent requests only: answer with the stream
   * recording a `stream: true` request of the same shape would replay, assembled
   * into the one response the vendor returns for a non-streamed call (same
   * content, tool calls, finish reason and usage as that stream). No effect on streams.
   */
  assembled?: boolean;
}

/**
 * What a queued script looks for in the raw request body: one substring, or
 * several that must all occur (to single out one access path, e.g. a marker
 * plus `"model":"gpt-4.1-mini"`).
 */
export type Match = string | string[];

/** A queued script applied to the next requests whose raw body contains `match`. */
export interface MatchScript extends Script {
  match: Match;
  /** Also required in the request's path and query, when set (two regions of a cloud send the same body). */
  path?: string;
  /** Also required as the key the request presented, when set (one key of a gateway's pool). */
  credential?: string;
  /** How many requests it applies to; 0 = unlimited. Default 1. */
  times?: number;
}

export interface MockProviderOptions {
  /**
   * When set, every persona's key must match it exactly (`Authorization: Bearer`,
   * Anthropic `x-api-key`, Gemini `x-goog-api-key` or `?key=`); otherwise any key is accepted.
   */
  apiKey?: string;
  /** Script applied to every request (lowest precedence); survives `/_mock/reset`. */
  defaultScript?: Script;
  /** Request log capacity; oldest entries are dropped beyond it. Default 10,000. */
  maxRecordedRequests?: number;
  /** The Bedrock persona's credentials (README, "Bedrock"). */
  bedrock?: BedrockOptions;
  /**
   * Model provider prompt caching: unscripted model calls report the cache reads (and Anthropic's
   * writes) their traffic earned (README, "Prompt caching"). Default off; `/_mock/prompt-cache` switches it.
   */
  promptCache?: boolean;
}

/**
 * Which vendor's wire form a request was answered in: decided by the path
 * (`/v1/messages` Anthropic, `/v1beta/...` Gemini, other `/v1/...` OpenAI), and
 * on the OpenAI paths OpenRouter when asked for (`x-mock-persona: openrouter`
 * or a `vendor/model` id in the body).
 */
export type Persona = "openai" | "openrouter" | "anthropic" | "gemini" | "azure" | "vertex" | "bedrock";

/** Who the Bedrock persona accepts; every field has a default. */
export interface BedrockOptions {
  /** The Bedrock API key (`Authorization: Bearer`); default MockProviderOptions.apiKey, else `bedrock-api-key-mock`. */
  apiKey?: string;
  /** The long-term SigV4 key pair; default `AKIDMOCKBEDROCK` / `mock-bedrock-secret-key`. */
  accessKeyId?: string;
  secretAccessKey?: string;
  /** Lifetime of the temporary credentials GET /bedrock/credentials issues; default 3600. */
  credentialsLifetimeSeconds?: number;
  /** When set, GET /bedrock/credentials needs `Authorization: <this>` (AWS_CONTAINER_AUTHORIZATION_TOKEN). */
  credentialsAuthorizationToken?: string;
}

/** One received /v1 or /v1beta request plus what the mock sent back. */
export interface RecordedRequest {
  /** Position since the last reset (0-based, never reused); `?since=` filters on it. */
  index: number;
  /** The persona that answered (set once the request was routed; absent only before that). */
  persona?: Persona;
  method: string;
  /** Path without query string. */
  path: string;
  /** Path with query string as received. */
  url: string;
  /** Request headers, names lowercased (as Node delivers them). */
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON body; the raw string when it was not JSON; undefined when empty. */
  body: unknown;
  receivedAt: number;
  /** The merged script that was applied, if any. */
  script?: Script;
  responseStatus?: number;
  /** Parsed JSON of a complete non-stream response. */
  responseBody?: unknown;
  /** Raw text written for streams and for truncated (faulted) responses. */
  responseText?: string;
}
