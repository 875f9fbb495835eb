// Anthropic's error envelope `{"type":"error","error":{"type","message"},"request_id"}`
// and the rest of its wire form (request-id header, x-should-retry, SSE framing).
import type { Json } from "./json";
import { statusFromFixtureName } from "./errors";
import type { StreamFraming, Wire } from "./wire";
import { MALFORMED_JSON } from "./wire";

export function anthropicError(type: string, message: string, requestId: string): Json {
  return { type: "error", error: { type, message }, request_id: requestId };
}

// Statuses without a recorded fixture; types from the Anthropic "Errors" docs page.
const DEFAULTS: Record<number, [type: string, message: string]> = {
  402: ["billing_error", "Your credit balance is too low to access the Anthropic API."],
  408: ["timeout_error", "Request timed out (mock)."],
  504: ["timeout_error", "Request timed out (mock)."],
};

/** The request's id in place of the recorded one (only on Anthropic-shaped bodies). */
function stamped(fixture: Json, requestId: string): Json {
  return fixture.type === "error" && "request_id" in fixture ? { ...fixture, request_id: requestId } : fixture;
}

export function createAnthropicWire(errorFixtures: Readonly<Record<string, Json>>): Wire {
  // The recorded body for each status (anthropic.error.<status>.<type>), e.g. 529 overloaded_error.
  const byStatus = new Map<number, Json>();
  for (const [name, body] of Object.entries(errorFixtures)) {
    const status = statusFromFixtureName(name);
    if (name.startsWith("anthropic.error.") && status !== undefined) byStatus.set(status, body);
  }
  return {
    requestIdHeader: "request-id",
    errorBody(status, requestId) {
      const recorded = byStatus.get(status);
      if (recorded) return stamped(recorded, requestId);
      const [type, message] =
        DEFAULTS[status] ??
        (status >= 500 ? ["api_error", "Internal server error"] : ["invalid_request_error", `Mock error (HTTP ${status}).`]);
      return anthropicError(type, message, requestId);
    },
    invalidRequest: (message, requestId) => anthropicError("invalid_request_error", message, requestId),
    notFound: (_method, _url, requestId) => anthropicError("not_found_error", "Not Found", requestId),
    fixtureBody: stamped,
    // The API tells its SDKs to retry these (recorded on the 429: x-should-retry: true).
    errorHeaders: (status): Record<string, string> => (status === 429 || status >= 500 ? { "x-should-retry": "true" } : {}),
  };
}

export function anthropicStreamFraming(recordedErrorEvent: string): StreamFraming {
  return {
    contentType: "text/event-stream; charset=utf-8",
    // Anthropic's own mid-stream error: the recorded `event: error` frame.
    errorEvent: recordedErrorEvent,
    malformedEvent: `event: content_block_delta\ndata: ${MALFORMED_JSON}\n\n`,
  };
}
