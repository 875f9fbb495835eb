// What differs between the vendors' wire forms, for the code that sends
// answers (respond.ts): error envelopes, the request-id header, and how a
// stream is framed and broken. One implementation per persona; the OpenAI one
// lives here because the others are built the same way.
import { defaultErrorBody, notFoundBody, openAIError } from "./errors";
import type { Json } from "./json";
import { DONE_FRAME, frame } from "./sse";

/** Extra detail of an OpenAI-style 400 (ignored by personas whose envelope has no such fields). */
export interface ErrorDetail {
  code?: string | null;
  param?: string | null;
}

export interface Wire {
  /** Response header carrying the per-request id, if the vendor sends one. */
  requestIdHeader?: string;
  /** Error body for a scripted status without a named fixture. */
  errorBody(status: number, requestId: string): unknown;
  /** The vendor's own 400 for a request it cannot serve. */
  invalidRequest(message: string, requestId: string, detail?: ErrorDetail): unknown;
  /** The vendor's 404 for a path it does not have. */
  notFound(method: string, url: string, requestId: string): unknown;
  /** A named error fixture as sent for this request (Anthropic stamps its request_id). */
  fixtureBody(fixture: Json, requestId: string): unknown;
  /** Headers added to every error response (before script headers, which win). */
  errorHeaders?(status: number): Record<string, string>;
}

/** How a stream is framed, and what its mid-stream faults write. */
export interface StreamFraming {
  contentType: string;
  /** Written right after the headers, before the first event; not an event (OpenRouter's comment). */
  prelude?: string;
  /** Written after the last event (OpenAI's `data: [DONE]`); absent when the stream just ends. */
  end?: string;
  /**
   * What `error-event-mid-stream` writes before ending the stream; a function
   * when it depends on how many events were sent (the Responses API numbers its
   * events, so its failure events continue the stream's sequence_number).
   */
  errorEvent: string | ((eventsSent: number) => string);
  /** What `malformed-sse` writes half-way. */
  malformedEvent: string;
}

export const openAIWire: Wire = {
  requestIdHeader: "x-request-id",
  errorBody: (status) => defaultErrorBody(status),
  invalidRequest: (message, _requestId, detail) =>
    openAIError(message, "invalid_request_error", detail?.code ?? null, detail?.param ?? null),
  notFound: (method, url) => notFoundBody(method, url),
  fixtureBody: (fixture) => fixture,
};

// The error event OpenAI sends when a stream fails after it started.
const OPENAI_STREAM_ERROR_EVENT = frame(
  JSON.stringify({
    error: {
      message: "The server had an error while processing your request. Sorry about that!",
      type: "server_error",
      code: null,
    },
  }),
);

export const MALFORMED_JSON = "{malformed json, this is not parseable";

export const openAIStreamFraming: StreamFraming = {
  contentType: "text/event-stream",
  end: DONE_FRAME,
  errorEvent: OPENAI_STREAM_ERROR_EVENT,
  malformedEvent: frame(MALFORMED_JSON),
};

/** The text `error-event-mid-stream` writes after `eventsSent` events of the stream. */
export function errorEventAfter(framing: StreamFraming, eventsSent: number): string {
  return typeof framing.errorEvent === "string" ? framing.errorEvent : framing.errorEvent(eventsSent);
}
