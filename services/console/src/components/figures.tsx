// Amounts and times as the console shows them: USD as the API gives it (exact, no rounding) with the
// nano-USD value on hover; times in UTC with the browser's local time on hover.
import type { Money as MoneyValue } from "../api/client";

const nanoFormat = new Intl.NumberFormat("en-US");

export function Money({ value, none = "none" }: { value: MoneyValue | null | undefined; none?: string }) {
  if (!value) return <span className="muted">{none}</span>;
  const negative = value.usd.startsWith("-");
  return (
    <span className="money" title={`${nanoFormat.format(BigInt(value.nano))} nano-USD`} data-nano={value.nano}>
      {negative ? "-" : ""}${negative ? value.usd.slice(1) : value.usd}
    </span>
  );
}

/** "2026-11-26 00:45:52 UTC" */
export const utcText = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;

export function Time({ iso, none = "never" }: { iso: string | null | undefined; none?: string }) {
  if (!iso) return <span className="muted">{none}</span>;
  const local = new Date(iso).toLocaleString(undefined, { timeZoneName: "short" });
  return (
    <time dateTime={iso} title={`local time: ${local}`}>
      {utcText(iso)}
    </time>
  );
}

/** "openai/gpt-4.1 via openai": a debit's or a hold's model and access path. */
export function ModelAndPath({ model, path }: { model: string | null; path: string | null }) {
  return (
    <>
      {model ?? <span className="muted">none</span>}
      {path && <span className="muted"> via {path}</span>}
    </>
  );
}
