// The request path's counters and histograms (metric-families.ts) against
// prom-client's own: the same observations give the same /metrics text (and
// JSON), label values with quotes, backslashes and newlines included.
import { Counter, Histogram, Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { CounterFamily, HistogramFamily } from "../../src/metric-families";

const BOUNDS = [0.0005, 0.001, 0.01, 0.5, 2];
const ODD = 'a "quoted" back\\slash\nnewline';

function both() {
  const theirs = new Registry();
  const ours = new Registry();
  return {
    theirs,
    ours,
    theirCounter: new Counter({ name: "c_total", help: "a counter", labelNames: ["route", "status"], registers: [theirs] }),
    ourCounter: new CounterFamily(ours, "c_total", "a counter", ["route", "status"]),
    theirHistogram: new Histogram({ name: "h_seconds", help: "a histogram", labelNames: ["phase"], buckets: BOUNDS, registers: [theirs] }),
    ourHistogram: new HistogramFamily(ours, "h_seconds", "a histogram", ["phase"], BOUNDS),
  };
}

describe("metric families", () => {
  it("serve the same text and JSON as prom-client's counters and histograms", async () => {
    const metrics = both();
    const counted: [string, string, number][] = [
      ["/v1/chat/completions", "200", 1],
      ["/v1/chat/completions", "200", 2],
      ["/v1/models", "401", 1],
      [ODD, "500", 1],
    ];
    for (const [route, status, amount] of counted) {
      metrics.theirCounter.inc({ route, status }, amount);
      metrics.ourCounter.series(route, status).inc(amount);
    }
    // On a bound, between bounds, above the last, zero.
    const observed: [string, number][] = [
      ["before_upstream", 0.0005],
      ["before_upstream", 0.0007],
      ["after_upstream", 0.3],
      ["after_upstream", 7],
      [ODD, 0],
    ];
    for (const [phase, value] of observed) {
      metrics.theirHistogram.observe({ phase }, value);
      metrics.ourHistogram.series(phase).observe(value);
    }
    expect(await metrics.ours.metrics()).toBe(await metrics.theirs.metrics());
    // prom-client's buckets carry an empty exemplar (exemplars are off); ours leave it out.
    const withoutExemplars = (json: unknown) =>
      JSON.parse(JSON.stringify(json, (key, value: unknown) => (key === "exemplar" ? undefined : value))) as unknown;
    expect(withoutExemplars(await metrics.ours.getMetricsAsJSON())).toEqual(withoutExemplars(await metrics.theirs.getMetricsAsJSON()));
    expect(await metrics.ours.metrics()).toContain('h_seconds_bucket{le="0.0005",phase="before_upstream"} 1\n');
  });

  it('keep one series per label values; refuse a wrong number of them, a NUL in one, no labels, and "le" on a histogram', () => {
    const { ours, ourCounter } = both();
    expect(ourCounter.series("a", "b")).toBe(ourCounter.series("a", "b"));
    expect(() => ourCounter.series("a\u0000b", "c")).toThrow(/NUL/); // would share the key of ("a", "b\u0000c")
    expect(() => ourCounter.series("a", "b\u0000c")).toThrow(/NUL/);
    expect(() => ourCounter.series("only one")).toThrow(/2 label values expected/);
    expect(() => new CounterFamily(ours, "unlabelled_total", "h", [])).toThrow(/at least one label/);
    expect(() => new HistogramFamily(ours, "le_seconds", "h", ["le"], BOUNDS)).toThrow(/bucket label/);
  });

  it("ignore what prom-client would refuse (a negative increment; NaN, infinite or negative durations) and go on counting", async () => {
    const metrics = both();
    const series = metrics.ourHistogram.series("p");
    for (const value of [Number.NaN, Infinity, -1]) series.observe(value);
    series.observe(0.2);
    metrics.ourCounter.series("r", "200").inc(-5);
    metrics.ourCounter.series("r", "200").inc();
    metrics.theirHistogram.observe({ phase: "p" }, 0.2);
    metrics.theirCounter.inc({ route: "r", status: "200" });
    expect(await metrics.ours.metrics()).toBe(await metrics.theirs.metrics());
  });

  it("count four labels in their order, and start again after registry.resetMetrics()", async () => {
    const theirs = new Registry();
    const ours = new Registry();
    const theirRequests = new Counter({
      name: "requests_total",
      help: "h",
      labelNames: ["route", "status", "model", "path"],
      registers: [theirs],
    });
    const ourRequests = new CounterFamily(ours, "requests_total", "h", ["route", "status", "model", "path"]);
    theirRequests.inc({ route: "/v1/chat/completions", status: "200", model: "openai/gpt-4.1-mini", path: "openai" });
    ourRequests.series("/v1/chat/completions", "200", "openai/gpt-4.1-mini", "openai").inc();
    theirRequests.inc({ route: "/v1/chat/completions", status: "401", model: "", path: "" });
    ourRequests.series("/v1/chat/completions", "401", "", "").inc();
    expect(await ours.metrics()).toBe(await theirs.metrics());
    ours.resetMetrics();
    theirs.resetMetrics();
    expect(await ours.metrics()).toBe(await theirs.metrics());
    ourRequests.series("/v1/models", "200", "", "").inc();
    expect(await ours.metrics()).toContain('requests_total{route="/v1/models",status="200",model="",path=""} 1');
  });
});
