// The metrics an UpstreamAttempts records to, on a registry of their own (unit tests of the attempt loop).
import { Registry } from "prom-client";
import type { AttemptMetrics } from "../../src/engine/upstream-attempts";
import { CounterFamily, HistogramFamily } from "../../src/metric-families";

export function attemptMetrics(registry = new Registry()): AttemptMetrics {
  const counter = (name: string, labels: string[]) => new CounterFamily(registry, name, name, labels);
  const histogram = (name: string, labels: string[]) => new HistogramFamily(registry, name, name, labels, [1]);
  return {
    upstreamAttempts: counter("attempts", ["provider", "outcome"]),
    retries: counter("retries", ["provider"]),
    fallbacks: counter("fallbacks", ["kind"]),
    overhead: histogram("overhead", ["phase"]),
    upstreamLatency: histogram("latency", ["provider"]),
  };
}
