// The first check of every OpenAI-dialect body.
import { invalidRequest } from "../../errors";

export function requireObjectBody(body: unknown): Record<string, unknown> {
  if (typeof body !== "object" || body === null || Array.isArray(body))
    throw invalidRequest("invalid_body", "The request body must be a JSON object.");
  return body as Record<string, unknown>;
}
