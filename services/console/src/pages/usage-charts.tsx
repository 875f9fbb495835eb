// The usage page's charts: spend per UTC day stacked by model with requests as a line, and tokens per day
// stacked by type. The bars are scaled from the exact figures; each segment's exact figure is on hover.
import { StackedDayChart, type Series } from "../components/stacked-day-chart";
import { type ChartDay, type ModelTotals, TOKEN_TYPES, type UsageRow } from "./usage-figures";

const MODEL_COLORS = ["#3c6fb6", "#e0a030", "#4a9d6a", "#b55a9e", "#6fb3c9", "#9c7a3c", "#8a8fd6"];
const OTHERS_COLOR = "#a0a0a0";
const TOKEN_COLORS = { input: "#3c6fb6", cached_input: "#6fb3c9", cache_write: "#8a8fd6", output: "#e0a030", reasoning: "#b55a9e" };
const numberFormat = new Intl.NumberFormat("en-US");

/** The models drawn one by one (the most spent); the rest share a segment, their figures in the tables. */
function spendSeries(days: ChartDay[], models: ModelTotals[]): Series[] {
  const shown = models.slice(0, MODEL_COLORS.length).map((m) => m.model);
  const others = models.slice(MODEL_COLORS.length).map((m) => m.model);
  const usdOf = (row: UsageRow | undefined) => (row ? Number(BigInt(row.cost.nano)) / 1e9 : 0);
  const series = shown.map((model, i) => ({
    name: model || "no model",
    color: MODEL_COLORS[i]!,
    values: days.map((day) => usdOf(day.rows.get(model))),
    labels: days.map((day) => `$${day.rows.get(model)?.cost.usd ?? "0.00"}`),
  }));
  if (others.length > 0)
    series.push({
      name: `${others.length} other models`,
      color: OTHERS_COLOR,
      values: days.map((day) => others.reduce((sum, model) => sum + usdOf(day.rows.get(model)), 0)),
      labels: days.map(() => "each in the tables below"),
    });
  return series;
}

export function UsageCharts({ days, models }: { days: ChartDay[]; models: ModelTotals[] }) {
  const dayNames = days.map((day) => day.day);
  return (
    <div className="charts">
      <StackedDayChart
        id="spend-chart"
        caption="Spend per UTC day by model (bars, USD) and requests (line)"
        days={dayNames}
        series={spendSeries(days, models)}
        topLabel={(top) => `$${top.toPrecision(3)}`}
        line={{ name: "Requests", values: days.map((day) => day.totals?.requests ?? 0), unit: "requests" }}
      />
      <StackedDayChart
        id="tokens-chart"
        caption="Tokens per UTC day by type"
        days={dayNames}
        series={TOKEN_TYPES.map(({ type, title }) => ({
          name: title,
          color: TOKEN_COLORS[type],
          values: days.map((day) => day.totals?.tokens[type] ?? 0),
          labels: days.map((day) => `${numberFormat.format(day.totals?.tokens[type] ?? 0)} tokens`),
        }))}
        topLabel={(top) => `${numberFormat.format(top)} tokens`}
      />
    </div>
  );
}
