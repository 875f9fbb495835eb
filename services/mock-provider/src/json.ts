// A JSON object as the mock reads it from fixtures and requests, and the check for one.
export type Json = Record<string, unknown>;

export function isRecord(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * `object` with `entries` set: keys it has keep their place (with the new value), new ones go right
 * after `after` (at the end when it has no such key): how the mock adds a field where the vendor puts it.
 */
export function insertAfter(object: Json, after: string, entries: Json): Json {
  const fresh = Object.entries(entries).filter(([key]) => !(key in object));
  const out: Json = {};
  for (const [key, value] of Object.entries(object)) {
    out[key] = key in entries ? entries[key] : value;
    if (key === after) for (const [newKey, newValue] of fresh) out[newKey] = newValue;
  }
  for (const [key, value] of fresh) if (!(key in out)) out[key] = value;
  return out;
}
