// A JSON object as the mock reads it from fixtures and requests, and the check for one.
export type Json = Record<string, unknown>;

export function isRecord(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
