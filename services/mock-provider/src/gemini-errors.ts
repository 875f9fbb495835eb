// The Google API error envelope `{"error":{"code","message","status","details"?}}`
// and the rest of Gemini's wire form: SSE events `data: <json>` separated by
// CRLF blank lines with no [DONE], or (without ?alt=sse) one JSON array.
import type { Json } from "./json";
import type { StreamFraming, Wire } from "./wire";
import { MALFORMED_JSON } from "./wire";

export function googleError(code: number, message: string, status: string): Json {
  return { error: { code, message, status } };
}

// Canonical google.rpc.Code names for HTTP statuses, with the messages the API is seen to send.
const DEFAULTS: Record<number, [status: string, message: string]> = {
  400: ["INVALID_ARGUMENT", "Request contains an invalid argument."],
  401: [
    "UNAUTHENTICATED",
    "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.",
  ],
  403: ["PERMISSION_DENIED", "The caller does not have permission"],
  404: ["NOT_FOUND", "Requested entity was not found."],
  409: ["ABORTED", "The operation was aborted."],
  412: ["FAILED_PRECONDITION", "Precondition check failed."],
  429: ["RESOURCE_EXHAUSTED", "Resource has been exhausted (e.g. check quota)."],
  499: ["CANCELLED", "The operation was cancelled."],
  500: [
    "INTERNAL",
    "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting",
  ],
  501: ["NOT_IMPLEMENTED", "Method not implemented."],
  503: ["UNAVAILABLE", "The model is overloaded. Please try again later."],
  504: ["DEADLINE_EXCEEDED", "Deadline expired before operation could complete."],
};

export function defaultGoogleError(status: number): Json {
  const [name, message] = DEFAULTS[status] ?? [status >= 500 ? "UNKNOWN" : "FAILED_PRECONDITION", `Mock error (HTTP ${status}).`];
  return googleError(status, message, name);
}

/** The error a Gemini call without any API key gets (HTTP 403). */
export const MISSING_KEY = googleError(
  403,
  "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
  "PERMISSION_DENIED",
);

export function createGeminiWire(errorFixtures: Readonly<Record<string, Json>>): Wire {
  // The recorded 429 is the generic quota answer; the recorded 400 and 404 are specific (bad key, unknown model).
  const recorded429 = errorFixtures["gemini.error.429.resource_exhausted"];
  return {
    errorBody: (status) => (status === 429 && recorded429 ? recorded429 : defaultGoogleError(status)),
    invalidRequest: (message) => googleError(400, message, "INVALID_ARGUMENT"),
    notFound: (method, url) => googleError(404, `Method not found: ${method} ${url.split("?")[0]}`, "NOT_FOUND"),
    fixtureBody: (fixture) => fixture,
  };
}

const MID_STREAM_ERROR = JSON.stringify(defaultGoogleError(500));

export const geminiSseFraming: StreamFraming = {
  contentType: "text/event-stream",
  errorEvent: `data: ${MID_STREAM_ERROR}\r\n\r\n`,
  malformedEvent: `data: ${MALFORMED_JSON}\r\n\r\n`,
};

/** Frames of an ?alt=sse stream, CRLF-separated as recorded. */
export function geminiSseFrames(responses: readonly Json[]): string[] {
  return responses.map((response) => `data: ${JSON.stringify(response)}\r\n\r\n`);
}

/** Without ?alt=sse the stream is one JSON array, sent element by element. */
export const geminiArrayFraming: StreamFraming = {
  contentType: "application/json; charset=UTF-8",
  end: "]",
  errorEvent: `,\r\n${MID_STREAM_ERROR}]`,
  malformedEvent: `,\r\n${MALFORMED_JSON}`,
};

export function geminiArrayFrames(responses: readonly Json[]): string[] {
  return responses.map((response, index) => `${index === 0 ? "[" : ",\r\n"}${JSON.stringify(response)}`);
}
