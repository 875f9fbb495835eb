// Spend (bars) and requests (line) per UTC day, drawn as SVG: no chart library for two series. Each day's
// figures are in its <title> (hover) and in the table beside the chart.
import type { DayTotal } from "../pages/usage-table";

const WIDTH = 720;
const HEIGHT = 240;
const PAD = { top: 22, right: 12, bottom: 28, left: 12 };

const usdOf = (nano: bigint) => Number(nano) / 1e9;

export function DayChart({ days }: { days: DayTotal[] }) {
  const maxCost = Math.max(...days.map((day) => usdOf(day.costNano)), 0) || 1;
  const maxRequests = Math.max(...days.map((day) => day.requests), 0) || 1;
  const plotWidth = WIDTH - PAD.left - PAD.right;
  const plotHeight = HEIGHT - PAD.top - PAD.bottom;
  const step = plotWidth / Math.max(days.length, 1);
  const x = (i: number) => PAD.left + i * step;
  const yCost = (usd: number) => PAD.top + plotHeight * (1 - usd / maxCost);
  const yRequests = (n: number) => PAD.top + plotHeight * (1 - n / maxRequests);
  const line = days.map((day, i) => `${i === 0 ? "M" : "L"}${x(i) + step / 2},${yRequests(day.requests)}`).join(" ");
  const labelEvery = Math.ceil(days.length / 8);

  return (
    <figure className="chart">
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-labelledby="chart-caption">
        <title>Spend and requests per UTC day</title>
        <line x1={PAD.left} x2={WIDTH - PAD.right} y1={PAD.top + plotHeight} y2={PAD.top + plotHeight} className="axis" />
        <text x={PAD.left} y={12} className="tick">
          top: ${maxCost.toPrecision(3)}
        </text>
        <text x={WIDTH - PAD.right} y={12} className="tick requests" textAnchor="end">
          top: {maxRequests} requests
        </text>
        {days.map((day, i) => (
          <g key={day.day}>
            <rect
              x={x(i) + step * 0.15}
              width={step * 0.7}
              y={yCost(usdOf(day.costNano))}
              height={PAD.top + plotHeight - yCost(usdOf(day.costNano))}
              className="bar"
            >
              <title>{`${day.day}: ${usdOf(day.costNano)} USD, ${day.requests} requests`}</title>
            </rect>
            {i % labelEvery === 0 && (
              <text x={x(i) + step / 2} y={HEIGHT - 8} className="tick" textAnchor="middle">
                {day.day.slice(5)}
              </text>
            )}
          </g>
        ))}
        <path d={line} className="line" />
      </svg>
      <figcaption id="chart-caption">
        <span className="legend-bar">Spend (USD, bars)</span> and <span className="legend-line">requests (line)</span> per UTC day
      </figcaption>
    </figure>
  );
}
