// Azure OpenAI's wire form for the mock's shared senders: errors in Azure's
// envelope (`{"error":{"code":"<string>","message"}}`, the code often the
// status), `apim-request-id` as the request id, Retry-After on 429s, and the
// headers every Azure answer carries.
import type { Json } from "../json";
import type { Wire } from "../wire";

export function azureErrorBody(code: string, message: string): Json {
  return { error: { code, message } };
}

const MESSAGES: Record<number, string> = {
  400: "Invalid request (mock).",
  401: "Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.",
  403: "Access denied (mock).",
  404: "Resource not found",
  429: "Requests to the ChatCompletions_Create Operation under Azure OpenAI API version 2024-10-21 have exceeded token rate limit of your current OpenAI S0 pricing tier. Please retry after 1 second.",
  500: "The server had an error while processing your request. Sorry about that!",
  503: "The service is temporarily unable to process your request. Please try again later.",
};

export function createAzureWire(errors: Readonly<Record<string, Json>>): Wire {
  return {
    requestIdHeader: "apim-request-id",
    errorBody: (status) =>
      (status === 401 && errors["azure.error.401.invalid_key"]) ||
      azureErrorBody(String(status), MESSAGES[status] ?? `Mock error (HTTP ${status}).`),
    // A deployment relays OpenAI's own 400s (missing fields, bad values).
    invalidRequest: (message, _requestId, detail) => ({
      error: { message, type: "invalid_request_error", param: detail?.param ?? null, code: detail?.code ?? null },
    }),
    notFound: () => azureErrorBody("404", "Resource not found"),
    fixtureBody: (fixture) => fixture,
    errorHeaders: (status): Record<string, string> =>
      status === 429 ? { "retry-after": "1", "retry-after-ms": "1000", "x-ratelimit-remaining-requests": "0" } : {},
  };
}

/** What every Azure answer carries besides the request id (values as a Global Standard deployment in East US sends them). */
export const AZURE_HEADERS: Readonly<Record<string, string>> = {
  "x-ms-region": "East US",
  "x-ratelimit-remaining-requests": "99",
  "x-ratelimit-remaining-tokens": "99000",
  "x-accel-buffering": "no",
};
