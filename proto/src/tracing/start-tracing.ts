// Starts tracing when configured. The OpenTelemetry SDK is imported only then:
// with tracing off it is never loaded, and every span is NO_SPAN.
import { NO_TRACING, type Tracing } from "./trace-span";
import type { TracingConfig } from "./tracing-config";

export async function startTracing(config: TracingConfig): Promise<Tracing> {
  if (!config.enabled) return NO_TRACING;
  const { openTelemetryTracing } = await import("./open-telemetry-tracing");
  return openTelemetryTracing(config);
}
