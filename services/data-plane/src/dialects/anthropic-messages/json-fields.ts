// Small checks for a client's untyped JSON: each failure is a 400 in the
// dialect (invalid_body) naming the field, as Anthropic's own errors do.
import { invalidRequest } from "../../errors";

export type JsonObject = Record<string, unknown>;

export const isRecord = (value: unknown): value is JsonObject => typeof value === "object" && value !== null && !Array.isArray(value);

export const badField = (path: string, problem: string) => invalidRequest("invalid_body", `${path}: ${problem}`);

export function requireRecord(value: unknown, path: string): JsonObject {
  if (!isRecord(value)) throw badField(path, "must be an object.");
  return value;
}

export function requireString(value: unknown, path: string): string {
  if (typeof value !== "string") throw badField(path, "must be a string.");
  return value;
}

export function optionalNumber(value: unknown, path: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "number" || !Number.isFinite(value)) throw badField(path, "must be a number.");
  return value;
}

export function optionalPositiveInteger(value: unknown, path: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1) throw badField(path, "must be a positive integer.");
  return value;
}
