// Usage per UTC day from the admin API's rows (day × model), and the same rows as CSV.
import type { Usage } from "../api/client";

export type UsageRow = Usage["data"][number];

export interface DayTotal {
  day: string;
  requests: number;
  /** nano-USD, summed exactly. */
  costNano: bigint;
}

/** Every day of the range, with zeroes for days without traffic, so the chart's axis is continuous. */
export function totalsByDay(usage: Usage): DayTotal[] {
  const byDay = new Map<string, DayTotal>();
  for (let day = new Date(`${usage.from}T00:00:00Z`); day <= new Date(`${usage.to}T00:00:00Z`); day.setUTCDate(day.getUTCDate() + 1)) {
    const key = day.toISOString().slice(0, 10);
    byDay.set(key, { day: key, requests: 0, costNano: 0n });
  }
  for (const row of usage.data) {
    const total = byDay.get(row.day) ?? { day: row.day, requests: 0, costNano: 0n };
    total.requests += row.requests;
    total.costNano += BigInt(row.cost.nano);
    byDay.set(row.day, total);
  }
  return [...byDay.values()].sort((a, b) => a.day.localeCompare(b.day));
}

const csvCell = (value: string | number) => {
  const text = String(value);
  return /[",\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
};

export function usageCsv(rows: UsageRow[]): string {
  const header = ["day", "model", "requests", "input_tokens", "output_tokens", "cost_usd", "cost_nano_usd"];
  const lines = rows.map((row) =>
    [row.day, row.model, row.requests, row.input_tokens, row.output_tokens, row.cost.usd, row.cost.nano].map(csvCell).join(","),
  );
  return `${[header.join(","), ...lines].join("\n")}\n`;
}
