// An upstream's Retry-After header, read the one way every provider's is read.
/** An upstream Retry-After, as whole seconds (>= 1), only when it is a plain number or an HTTP date. */
export function retryAfterSeconds(header: string | string[] | undefined, now = Date.now()): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Math.max(1, Number(value.trim()));
  if (!/^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/.test(value.trim())) return undefined; // HTTP-date only
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(1, Math.ceil((date - now) / 1000));
}

/**
 * The wait an upstream's response asks for, in whole seconds: `Retry-After`, else `retry-after-ms`
 * (Azure OpenAI's and OpenAI's milliseconds, rounded up) when it is a plain number.
 */
export function responseRetryAfter(headers: Record<string, string | string[] | undefined>, now = Date.now()): number | undefined {
  const seconds = retryAfterSeconds(headers["retry-after"], now);
  if (seconds !== undefined) return seconds;
  const header = headers["retry-after-ms"];
  const ms = (Array.isArray(header) ? header[0] : header)?.trim();
  return ms && /^\d+(\.\d+)?$/.test(ms) ? Math.max(1, Math.ceil(Number(ms) / 1000)) : undefined;
}
