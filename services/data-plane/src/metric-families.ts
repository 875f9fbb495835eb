// Labelled counters and histograms for the request path, served by the data
// plane's prom-client registry in the same text format as prom-client's own.
// A call site names its label values in order, `family.series("openai")`, and
// gets the series kept under them: a Map lookup (and for a histogram a search
// of its bucket bounds) instead of prom-client's label check, key building and
// dictionary lookup, which cost measurably per request (docs/benchmark.md).
// Metrics outside the request path stay prom-client's own.
import type { Registry } from "prom-client";

interface Sample {
  value: number;
  labels: Record<string, string | number>;
  sharedLabels?: Record<string, string>;
  metricName?: string;
}

interface Snapshot {
  name: string;
  help: string;
  type: "counter" | "histogram";
  values: Sample[];
  aggregator: "sum";
}

const SEPARATOR = "\u0000";

/**
 * Series by their label values: one label's value is its own key; several are joined by NUL, which
 * no label value may hold (refused when a series is made), so two different lists never share a key.
 */
abstract class Family<Series> {
  private readonly byKey = new Map<string, { series: Series; labels: Record<string, string> }>();

  constructor(
    registry: Registry,
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly string[],
  ) {
    // An unlabelled metric stays a prom-client one (it shows 0 before its first count; these show a series once used).
    if (labelNames.length === 0) throw new Error(`${name}: a metric family needs at least one label`);
    // The registry needs only name, get(), reset() and, for its text, getForPromString(); its
    // parameter type lists prom-client's own classes.
    registry.registerMetric(this as never);
  }

  /** The series of these label values, in the order of `labelNames`. */
  series(...values: string[]): Series {
    const key = values.length === 1 ? values[0]! : values.join(SEPARATOR);
    const known = this.byKey.get(key);
    if (known) return known.series;
    if (values.length !== this.labelNames.length)
      throw new Error(`${this.name}: ${this.labelNames.length} label values expected, got ${values.length}`);
    if (values.some((value) => value.includes(SEPARATOR))) throw new Error(`${this.name}: a label value holds NUL`);
    const series = this.create();
    this.byKey.set(key, { series, labels: Object.fromEntries(this.labelNames.map((label, index) => [label, values[index]!])) });
    return series;
  }

  /** registry.resetMetrics(): every series goes (call sites ask for theirs on each observation, so they come back). */
  reset(): void {
    this.byKey.clear();
  }

  protected abstract create(): Series;
  protected abstract samples(series: Series, labels: Record<string, string>): Sample[];
  abstract readonly type: Snapshot["type"];

  async getForPromString(): Promise<Snapshot> {
    const values: Sample[] = [];
    for (const { series, labels } of this.byKey.values()) values.push(...this.samples(series, labels));
    return { name: this.name, help: this.help, type: this.type, values, aggregator: "sum" };
  }

  /** As prom-client's get(): each sample's labels in one object (JSON output, registry merges). */
  async get(): Promise<Snapshot> {
    const snapshot = await this.getForPromString();
    snapshot.values = snapshot.values.map(({ sharedLabels, ...sample }) => ({ ...sample, labels: { ...sample.labels, ...sharedLabels } }));
    return snapshot;
  }
}

export class CounterSeries {
  value = 0;
  /** A negative or non-number amount is ignored (prom-client throws; a request must not fail on a metric). */
  inc(amount = 1): void {
    if (amount > 0) this.value += amount;
  }
}

export class CounterFamily extends Family<CounterSeries> {
  readonly type = "counter";
  protected create(): CounterSeries {
    return new CounterSeries();
  }
  protected samples(series: CounterSeries, labels: Record<string, string>): Sample[] {
    return [{ value: series.value, labels }];
  }
}

/** A money counter: added to in integer nano-USD (the ledger's unit, no float drift), shown in USD, the base unit. */
export class UsdSeries {
  nano = 0n;
  /** A negative amount is ignored, as a counter's. */
  add(nano: bigint): void {
    if (nano > 0n) this.nano += nano;
  }
}

export class UsdCounterFamily extends Family<UsdSeries> {
  readonly type = "counter";
  protected create(): UsdSeries {
    return new UsdSeries();
  }
  protected samples(series: UsdSeries, labels: Record<string, string>): Sample[] {
    return [{ value: Number(series.nano) / 1e9, labels }];
  }
}

export class HistogramSeries {
  /** counts[i]: observations in (bounds[i-1], bounds[i]]; the last: above every bound. */
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(private readonly bounds: readonly number[]) {
    this.counts = new Float64Array(bounds.length + 1);
  }

  /** A value below 0, infinite or not a number is ignored (prom-client throws on the last two; all of ours are durations). */
  observe(value: number): void {
    if (!(value >= 0 && value < Infinity)) return;
    const { bounds } = this;
    let index = 0;
    while (index < bounds.length && value > bounds[index]!) index++;
    this.counts[index]!++;
    this.sum += value;
    this.count++;
  }
}

function withoutLe(name: string, labelNames: readonly string[]): readonly string[] {
  if (labelNames.includes("le")) throw new Error(`${name}: "le" is the bucket label`);
  return labelNames;
}

export class HistogramFamily extends Family<HistogramSeries> {
  readonly type = "histogram";

  constructor(
    registry: Registry,
    name: string,
    help: string,
    labelNames: readonly string[],
    readonly bounds: readonly number[],
  ) {
    super(registry, name, help, withoutLe(name, labelNames));
  }

  protected create(): HistogramSeries {
    return new HistogramSeries(this.bounds);
  }

  /** Cumulative buckets, then +Inf, sum and count: prom-client's order and labels (`le` first). */
  protected samples(series: HistogramSeries, labels: Record<string, string>): Sample[] {
    const bucket = `${this.name}_bucket`;
    const samples: Sample[] = [];
    let cumulative = 0;
    this.bounds.forEach((bound, index) => {
      cumulative += series.counts[index]!;
      samples.push({ value: cumulative, labels: { le: bound }, sharedLabels: labels, metricName: bucket });
    });
    samples.push(
      { value: series.count, labels: { le: "+Inf" }, sharedLabels: labels, metricName: bucket },
      { value: series.sum, labels: {}, sharedLabels: labels, metricName: `${this.name}_sum` },
      { value: series.count, labels: {}, sharedLabels: labels, metricName: `${this.name}_count` },
    );
    return samples;
  }
}
