// Exact conversions between USD decimal text and integer nano-USD.
export const NANO_PER_USD = 1_000_000_000n;

const USD_PATTERN = /^(\d+)(?:\.(\d{1,9}))?$/;

/** "12.34" -> 12_340_000_000n. Rejects negatives, exponents and more than 9 decimals. */
export function parseUsd(text: string): bigint | undefined {
  const match = USD_PATTERN.exec(text.trim());
  if (!match) return undefined;
  const fraction = (match[2] ?? "").padEnd(9, "0");
  return BigInt(match[1]!) * NANO_PER_USD + BigInt(fraction);
}

/** 12_340_000_000n -> "12.34" (no trailing zeros beyond two decimals). */
export function formatUsd(nano: bigint): string {
  const negative = nano < 0n;
  const absolute = negative ? -nano : nano;
  const whole = absolute / NANO_PER_USD;
  let fraction = (absolute % NANO_PER_USD).toString().padStart(9, "0").replace(/0+$/, "");
  if (fraction.length < 2) fraction = fraction.padEnd(2, "0");
  return `${negative ? "-" : ""}${whole}.${fraction}`;
}
