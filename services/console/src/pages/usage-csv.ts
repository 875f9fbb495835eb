// The usage page's download: the API's rows (one per UTC day and model) as CSV, with the exact nano-USD.
import { TOKEN_TYPES, type UsageRow } from "./usage-figures";

/** A number as written (a negative one too): it cannot hold a formula, and a spreadsheet keeps it a number. */
const PLAIN_NUMBER = /^-?\d+(\.\d+)?$/;
/** How a formula starts in a spreadsheet (OWASP, "CSV Injection"): =, +, -, @, tab, carriage return. */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * One CSV cell: text that a spreadsheet would take for a formula gets a leading single quote (shown as
 * text, never run); then quoted when it holds a quote, comma or line break (RFC 4180).
 */
export function csvCell(value: string | number): string {
  let text = String(value);
  if (typeof value === "string" && !PLAIN_NUMBER.test(text) && FORMULA_START.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export const CSV_HEADER = [
  "day",
  "model",
  "requests",
  "input_tokens",
  "output_tokens",
  ...TOKEN_TYPES.map(({ type }) => `tokens_${type}`),
  "cost_usd",
  "cost_nano_usd",
];

export function usageCsv(rows: UsageRow[]): string {
  const lines = rows.map((row) =>
    [
      row.day,
      row.model,
      row.requests,
      row.input_tokens,
      row.output_tokens,
      ...TOKEN_TYPES.map(({ type }) => row.tokens[type]),
      row.cost.usd,
      row.cost.nano,
    ]
      .map(csvCell)
      .join(","),
  );
  return `${[CSV_HEADER.join(","), ...lines].join("\n")}\n`;
}
