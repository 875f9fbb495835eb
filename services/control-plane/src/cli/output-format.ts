// gatewayctl's human output shared by its command groups: amounts and listings.
import { table } from "./table";

/** An answer's object, field by field as the admin API names them. */
export type Row = Record<string, unknown>;

/** The rows of a listing answer (`{ data: [...] }`). */
export const dataOf = (result: unknown) => (result as { data?: Row[] }).data ?? [];

/** An amount as `$1.25`, or `none` when the API gives null (no cap, no budget). */
export const money = (value: unknown) => (value && typeof value === "object" ? `$${(value as { usd: string }).usd}` : "none");

/** A listing as a table with its header row, or `none` when empty. */
export function listing(none: string, headers: string[], rows: string[][]): string {
  return rows.length === 0 ? none : table(headers, rows);
}
