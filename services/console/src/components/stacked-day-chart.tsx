// A stacked bar per UTC day (one segment per series), with an optional line on its own scale, drawn as SVG:
// no chart library for this. Each segment's exact figure is in its <title> (hover) and in the tables below.
const WIDTH = 720;
const HEIGHT = 240;
const PAD = { top: 22, right: 12, bottom: 28, left: 12 };

export interface Series {
  name: string;
  color: string;
  /** One value per day, to scale the segment. */
  values: number[];
  /** One text per day, shown on hover: the exact figure. */
  labels: string[];
}

export interface ChartProps {
  id: string;
  caption: string;
  days: string[];
  series: Series[];
  /** Top of the bars' scale, in words ("$0.42", "1,200 tokens"). */
  topLabel: (top: number) => string;
  line?: { name: string; values: number[]; unit: string };
}

export function StackedDayChart({ id, caption, days, series, topLabel, line }: ChartProps) {
  const stackTop = Math.max(0, ...days.map((_, i) => series.reduce((sum, s) => sum + s.values[i]!, 0))) || 1;
  const lineTop = Math.max(0, ...(line?.values ?? [])) || 1;
  const plotWidth = WIDTH - PAD.left - PAD.right;
  const plotHeight = HEIGHT - PAD.top - PAD.bottom;
  const step = plotWidth / Math.max(days.length, 1);
  const x = (i: number) => PAD.left + i * step;
  const height = (value: number) => (plotHeight * value) / stackTop;
  const yLine = (value: number) => PAD.top + plotHeight * (1 - value / lineTop);
  const path = line?.values.map((value, i) => `${i === 0 ? "M" : "L"}${x(i) + step / 2},${yLine(value)}`).join(" ");
  const labelEvery = Math.ceil(days.length / 8);

  return (
    <figure className="chart" data-chart={id}>
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-labelledby={`${id}-caption`}>
        <title>{caption}</title>
        <line x1={PAD.left} x2={WIDTH - PAD.right} y1={PAD.top + plotHeight} y2={PAD.top + plotHeight} className="axis" />
        <text x={PAD.left} y={12} className="tick">
          top: {topLabel(stackTop)}
        </text>
        {line && (
          <text x={WIDTH - PAD.right} y={12} className="tick line-tick" textAnchor="end">
            top: {lineTop} {line.unit}
          </text>
        )}
        {days.map((day, i) => {
          let base = PAD.top + plotHeight;
          return (
            <g key={day}>
              {series.map((s) => {
                const h = height(s.values[i]!);
                if (h <= 0) return null;
                base -= h;
                return (
                  <rect key={s.name} x={x(i) + step * 0.15} width={step * 0.7} y={base} height={h} fill={s.color} className="bar">
                    <title>{`${day} · ${s.name}: ${s.labels[i]}`}</title>
                  </rect>
                );
              })}
              {i % labelEvery === 0 && (
                <text x={x(i) + step / 2} y={HEIGHT - 8} className="tick" textAnchor="middle">
                  {day.slice(5)}
                </text>
              )}
            </g>
          );
        })}
        {path && <path d={path} className="line" />}
      </svg>
      <figcaption id={`${id}-caption`}>
        {caption}
        <ul className="legend">
          {series.map((s) => (
            <li key={s.name}>
              <svg width="12" height="12" aria-hidden="true">
                <rect width="12" height="12" fill={s.color} />
              </svg>{" "}
              {s.name}
            </li>
          ))}
          {line && (
            <li>
              <svg width="12" height="12" aria-hidden="true">
                <line x1="0" x2="12" y1="6" y2="6" className="line" />
              </svg>{" "}
              {line.name}
            </li>
          )}
        </ul>
      </figcaption>
    </figure>
  );
}
