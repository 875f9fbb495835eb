// The one object check of the dialect: a JSON object, not null or an array.
export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
