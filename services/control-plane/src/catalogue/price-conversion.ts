// Prices as the public lists write them (decimal text or JSON numbers, per token or per million) to the
// catalogue's exact integer nano-USD per million tokens.

/** Input and output price in integer nano-USD per million tokens. */
export interface TokenPrice {
  input: bigint;
  output: bigint;
}

const DECIMAL = /^(-?)(\d*)(?:\.(\d*))?(?:e([+-]?\d+))?$/i;

/**
 * Exact conversion of a price as the sources write it (OpenRouter: per-token
 * decimal strings; litellm: per-token JSON numbers; models.dev: per-1M numbers)
 * to nano-USD per million tokens. Decimal arithmetic on the text, not floats,
 * because 1.5e-7 * 1e6 is 0.15000000000000002 in binary. Rounds to the nearest
 * nano-USD (the catalogue's resolution). Missing, non-numeric and negative values
 * (OpenRouter's "-1" = variable pricing) give undefined. A price per unit (per
 * request, per search) converts with "per-million": a plain USD -> nano-USD.
 */
export function toNanoPerM(value: unknown, unit: "per-token" | "per-million"): bigint | undefined {
  let text: string;
  if (typeof value === "number") {
    if (!Number.isFinite(value)) return undefined;
    text = String(value);
  } else if (typeof value === "string") {
    text = value.trim();
  } else {
    return undefined;
  }
  const match = DECIMAL.exec(text);
  if (!match) return undefined;
  const [, sign, whole = "", fraction = "", exponent = "0"] = match;
  if (whole === "" && fraction === "") return undefined;
  const digits = BigInt(`${whole}${fraction}` || "0");
  if (sign === "-" && digits !== 0n) return undefined;
  const scale = Number(exponent) - fraction.length + 9 + (unit === "per-token" ? 6 : 0);
  if (scale >= 0) return digits * 10n ** BigInt(scale);
  const divisor = 10n ** BigInt(-scale);
  return (digits + divisor / 2n) / divisor;
}

/** Both parts of a price, or undefined when either is missing or unusable. */
export function tokenPrice(input: unknown, output: unknown, unit: "per-token" | "per-million"): TokenPrice | undefined {
  const inputNano = toNanoPerM(input, unit);
  const outputNano = toNanoPerM(output, unit);
  return inputNano === undefined || outputNano === undefined ? undefined : { input: inputNano, output: outputNano };
}
