// Numbers as both planes put them on the wire and in the ledger: money as int64 decimal strings, never
// negative (a negative debit would be a credit); token counts as the ledger's 32-bit integers.

export const INT64_MAX = 9_223_372_036_854_775_807n;
export const TOKENS_MAX = 2_147_483_647;

/** An amount in nano-USD as an int64 decimal string: clamped to 0..INT64_MAX. */
export const wireAmount = (nano: bigint): string => (nano > INT64_MAX ? INT64_MAX : nano < 0n ? 0n : nano).toString();

/** A token count beyond 32 bits is an upstream's nonsense, kept at the maximum; below 0 (or not a number), 0. */
export const wireTokens = (count: number): number => Math.min(Math.max(0, Math.floor(count) || 0), TOKENS_MAX);
