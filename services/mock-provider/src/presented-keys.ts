// The keys a request presented, however its persona takes them (a bearer token, Anthropic's x-api-key,
// Azure's api-key, Gemini's x-goog-api-key or ?key=): what a match script's `credential` is compared with,
// and what the prompt cache names an account by.
import type { FastifyRequest } from "fastify";

const HEADERS = ["x-api-key", "api-key", "x-goog-api-key"] as const;

/** A request header's (first) value; undefined when absent or empty. */
export function headerValue(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return (Array.isArray(value) ? value[0] : value) || undefined;
}

/** The token of `Authorization: Bearer <token>`. */
export const bearerToken = (request: FastifyRequest): string | undefined =>
  /^Bearer\s+(\S+)$/i.exec(headerValue(request, "authorization") ?? "")?.[1];

export function presentedKeys(request: FastifyRequest): string[] {
  const keys: string[] = [];
  const bearer = bearerToken(request);
  if (bearer) keys.push(bearer);
  for (const name of HEADERS) {
    const value = headerValue(request, name);
    if (value) keys.push(value);
  }
  const query = request.query as Record<string, unknown> | undefined;
  if (typeof query?.key === "string" && query.key !== "") keys.push(query.key);
  return keys;
}
