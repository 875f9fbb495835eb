// Reading a Prometheus scrape in a test: the sum of a metric's samples whose labels include the given ones.

/** Sums `name`'s samples in `text` (the Prometheus text format) that carry every label in `labels`. */
export function metricValue(text: string, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels).map(([label, value]) => `${label}="${value}"`);
  let sum = 0;
  for (const line of text.split("\n")) {
    if (!line.startsWith(name)) continue;
    const rest = line.slice(name.length);
    const match = /^(?:\{([^}]*)\})? (\S+)$/.exec(rest);
    if (!match) continue; // another metric whose name starts with this one's
    const present = (match[1] ?? "").split(",");
    if (wanted.every((pair) => present.includes(pair))) sum += Number(match[2]);
  }
  return sum;
}

/** Scrapes `${metricsUrl}/metrics` and sums `name`'s samples that carry `labels`. */
export async function readMetric(metricsUrl: string, name: string, labels: Record<string, string> = {}): Promise<number> {
  return metricValue(await (await fetch(`${metricsUrl}/metrics`)).text(), name, labels);
}
