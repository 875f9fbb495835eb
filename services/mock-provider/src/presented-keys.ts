// The keys a request presented, however its persona takes them (a bearer token, Anthropic's x-api-key,
// Azure's api-key, Gemini's x-goog-api-key or ?key=): what a match script's `credential` is compared with.
import type { FastifyRequest } from "fastify";

const HEADERS = ["x-api-key", "api-key", "x-goog-api-key"] as const;

export function presentedKeys(request: FastifyRequest): string[] {
  const keys: string[] = [];
  const authorization = request.headers.authorization;
  const bearer = typeof authorization === "string" ? /^Bearer\s+(\S+)$/i.exec(authorization)?.[1] : undefined;
  if (bearer) keys.push(bearer);
  for (const name of HEADERS) {
    const value = request.headers[name];
    if (typeof value === "string" && value !== "") keys.push(value);
  }
  const query = request.query as Record<string, unknown> | undefined;
  if (typeof query?.key === "string" && query.key !== "") keys.push(query.key);
  return keys;
}
