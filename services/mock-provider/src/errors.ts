// OpenAI-style error bodies: `{"error":{"message","type","param","code"}}`
// (components.schemas.ErrorResponse). Used when a script sets a status without
// naming an error fixture, and for the mock's own 400/404 answers.

export interface OpenAIErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

export function openAIError(
  message: string,
  type = "invalid_request_error",
  code: string | null = null,
  param: string | null = null,
): OpenAIErrorBody {
  return { error: { message, type, param, code } };
}

// Wording follows what the API is commonly observed to send for each status,
// so gateway error mapping is exercised against realistic text.
const DEFAULTS: Record<number, [message: string, type: string, code: string | null]> = {
  400: ["Invalid request (mock).", "invalid_request_error", null],
  401: ["Incorrect API key provided.", "invalid_request_error", "invalid_api_key"],
  403: ["You are not allowed to access this resource (mock).", "permission_error", null],
  404: ["The requested resource does not exist (mock).", "invalid_request_error", "not_found"],
  408: ["Request timed out (mock).", "timeout", null],
  409: ["Conflict (mock).", "invalid_request_error", null],
  413: ["Request too large (mock).", "invalid_request_error", null],
  422: ["Unprocessable request (mock).", "invalid_request_error", null],
  429: ["Rate limit reached for requests (mock).", "requests", "rate_limit_exceeded"],
  500: ["The server had an error while processing your request. Sorry about that!", "server_error", null],
  502: ["Bad gateway.", "server_error", null],
  503: ["The engine is currently overloaded, please try again later.", "server_error", null],
  504: ["Gateway timeout.", "server_error", null],
};

export function defaultErrorBody(status: number): OpenAIErrorBody {
  const known = DEFAULTS[status];
  if (known) return openAIError(...known);
  return openAIError(`Mock error (HTTP ${status}).`, status >= 500 ? "server_error" : "invalid_request_error");
}

/** OpenAI's answer for a route it does not have. */
export function notFoundBody(method: string, url: string): OpenAIErrorBody {
  return openAIError(`Invalid URL (${method} ${url})`);
}

/**
 * Status encoded in an error fixture name: "<vendor>.error.<status>[.<code>]",
 * e.g. "openai.error.429.rate_limit_exceeded" or "openrouter.error.402".
 */
export function statusFromFixtureName(name: string): number | undefined {
  const match = /^[a-z]+\.error\.(\d{3})(?:\.|$)/.exec(name);
  return match ? Number(match[1]) : undefined;
}
