// Vertex AI's wire form: google.rpc.Status error bodies (the recorded
// vertex.error.* files by status, Google's canonical names otherwise), and
// Claude's answers carrying Anthropic's `request-id` header with `req_vrtx_` ids.
import { defaultGoogleError, googleError } from "../gemini-errors";
import type { Json } from "../json";
import { statusFromFixtureName } from "../errors";
import type { Wire } from "../wire";

export function createVertexWire(errorFixtures: Readonly<Record<string, Json>>): Wire {
  const byStatus = new Map<number, Json>();
  for (const [name, body] of Object.entries(errorFixtures)) {
    const status = statusFromFixtureName(name);
    if (name.startsWith("vertex.error.") && status !== undefined && !byStatus.has(status)) byStatus.set(status, body);
  }
  return {
    errorBody: (status) => byStatus.get(status) ?? defaultGoogleError(status),
    invalidRequest: (message) => googleError(400, message, "INVALID_ARGUMENT"),
    notFound: (method, url) => googleError(404, `Method not found: ${method} ${url.split("?")[0]}`, "NOT_FOUND"),
    fixtureBody: (fixture) => fixture,
  };
}

/** The same wire on Claude's routes, with the `request-id` header Vertex relays from Anthropic. */
export const withClaudeRequestId = (wire: Wire): Wire => ({ ...wire, requestIdHeader: "request-id" });
