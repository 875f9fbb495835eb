// Small readers for untyped JSON. Caller bodies and upstream answers arrive as
// `unknown`; these keep the translators free of casts and tolerant of fields
// of the wrong type (a wrong-typed field is treated as absent, never thrown on).

export type JsonObject = Record<string, unknown>;

export const isRecord = (value: unknown): value is JsonObject => typeof value === "object" && value !== null && !Array.isArray(value);

/** A token count: a finite number >= 0, rounded; anything else is undefined. */
export const tokenCount = (value: unknown): number | undefined =>
  typeof value === "number" && Number.isFinite(value) && value >= 0 ? Math.round(value) : undefined;

/** A positive integer (max_tokens, top_k), else undefined. */
export const positiveInteger = (value: unknown): number | undefined =>
  typeof value === "number" && Number.isInteger(value) && value > 0 ? value : undefined;

export const nonEmptyString = (value: unknown): string | undefined => (typeof value === "string" && value.length > 0 ? value : undefined);
