// The usage page's figures, as the admin API gives them: its rows (one per UTC day and model) and its totals
// per day, per model and for the range. Only the charts' day axis is made here: every day of the range, the
// days without requests at zero.
// The generated types, not api/client's aliases: this file and the CSV's are unit-tested under node.
import type { components } from "../generated/admin-api";

type Usage = components["schemas"]["Usage"];

export type UsageRow = Usage["data"][number];
export type DayTotals = Usage["by_day"][number];
export type ModelTotals = Usage["by_model"][number];
export type Totals = Usage["total"];
export type TokensByType = UsageRow["tokens"];

export const TOKEN_TYPES = [
  { type: "input", title: "Input" },
  { type: "cached_input", title: "Cached input" },
  { type: "cache_write", title: "Cache write" },
  { type: "output", title: "Output" },
  { type: "reasoning", title: "Reasoning" },
] as const satisfies readonly { type: keyof TokensByType; title: string }[];

export interface ChartDay {
  day: string;
  /** The API's totals of the day; undefined on a day without requests. */
  totals: DayTotals | undefined;
  /** The API's rows of the day, by model. */
  rows: Map<string, UsageRow>;
}

/** Every day of the range, in order, with the API's totals and rows of each. */
export function chartDays(usage: Usage): ChartDay[] {
  const days: ChartDay[] = [];
  const totals = new Map(usage.by_day.map((day) => [day.day, day]));
  for (let day = new Date(`${usage.from}T00:00:00Z`); day <= new Date(`${usage.to}T00:00:00Z`); day.setUTCDate(day.getUTCDate() + 1)) {
    const key = day.toISOString().slice(0, 10);
    days.push({
      day: key,
      totals: totals.get(key),
      rows: new Map(usage.data.filter((row) => row.day === key).map((row) => [row.model, row])),
    });
  }
  return days;
}
