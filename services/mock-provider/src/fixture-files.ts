// Reading fixture files: every loader (one per persona) goes through these, so
// everything served is parsed once and deep-frozen. Responses share nested
// objects with the fixtures; a frozen fixture cannot be corrupted by one request
// (or by a test poking at a log entry) for the next.
import { readFileSync } from "node:fs";
import type { Json } from "./json";

export function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

export interface FixtureReader {
  text(name: string): string;
  json(name: string): Json;
}

export function fixtureReader(dir: string): FixtureReader {
  const text = (name: string) => readFileSync(dir + name, "utf8");
  return { text, json: (name) => deepFreeze(JSON.parse(text(name)) as Json) };
}
