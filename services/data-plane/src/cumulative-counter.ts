// A Prometheus counter whose figure a component keeps itself (the rate
// limiter's fallback checks, the leases' events, a circuit's opens): read when
// scraped, so the request path pays nothing, and typed `counter` so rate() and
// increase() apply and the name ends in _total. The figure only grows while
// the process lives, which is what a counter promises.
import { Counter, type Registry } from "prom-client";

type Labels = Record<string, string>;

export function cumulative(
  registry: Registry,
  name: string,
  help: string,
  read: () => readonly (readonly [Labels, number | bigint])[],
  labelNames: readonly string[] = [],
): Counter {
  return new Counter({
    name,
    help,
    labelNames,
    registers: [registry],
    collect() {
      this.reset();
      for (const [labels, value] of read()) this.inc(labels, Number(value));
    },
  });
}
