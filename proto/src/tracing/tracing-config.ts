// The standard OTEL_* variables, read once at start-up by each service's
// config. Tracing is off unless asked for (docs/tracing.md, "Turning it on").
// The exporter itself reads OTEL_EXPORTER_OTLP_* (endpoint, headers, timeout,
// compression) and the resource OTEL_RESOURCE_ATTRIBUTES, as the SDK documents.

export type TracingSampler =
  | { kind: "always_on" | "always_off" | "parentbased_always_on" | "parentbased_always_off" }
  | { kind: "traceidratio" | "parentbased_traceidratio"; ratio: number };

export interface TracingConfig {
  enabled: boolean;
  serviceName: string;
  /** OTLP over HTTP: protobuf (the OpenTelemetry default) or JSON. */
  protocol: "http/protobuf" | "http/json";
  sampler: TracingSampler;
  /** OTEL_BSP_*: the batch span processor. */
  batch: { scheduledDelayMillis: number; exportTimeoutMillis: number; maxQueueSize: number; maxExportBatchSize: number };
}

export class TracingConfigError extends Error {}

const SAMPLERS = ["always_on", "always_off", "traceidratio", "parentbased_always_on", "parentbased_always_off", "parentbased_traceidratio"];

function count(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new TracingConfigError(`${name} must be an integer >= 1, got "${raw}"`);
  return value;
}

/** On when an OTLP exporter is named, or, with none named, when an OTLP endpoint is set; OTEL_SDK_DISABLED=true wins. */
function tracingWanted(env: NodeJS.ProcessEnv): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true") return false;
  const exporters = env.OTEL_TRACES_EXPORTER?.trim().toLowerCase();
  if (exporters) {
    const names = exporters.split(",").map((name) => name.trim());
    const unknown = names.find((name) => name !== "otlp" && name !== "none");
    if (unknown) throw new TracingConfigError(`OTEL_TRACES_EXPORTER: only "otlp" or "none" are supported, got "${unknown}"`);
    return names.includes("otlp");
  }
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
}

function sampler(env: NodeJS.ProcessEnv): TracingSampler {
  const kind = env.OTEL_TRACES_SAMPLER?.trim().toLowerCase() || "parentbased_always_on";
  if (!SAMPLERS.includes(kind))
    throw new TracingConfigError(`OTEL_TRACES_SAMPLER must be one of ${SAMPLERS.join(", ")}, got "${env.OTEL_TRACES_SAMPLER}"`);
  if (kind !== "traceidratio" && kind !== "parentbased_traceidratio") return { kind } as TracingSampler;
  const raw = env.OTEL_TRACES_SAMPLER_ARG?.trim();
  const ratio = raw ? Number(raw) : 1;
  if (!(ratio >= 0 && ratio <= 1)) throw new TracingConfigError(`OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1, got "${raw}"`);
  return { kind, ratio };
}

function protocol(env: NodeJS.ProcessEnv): TracingConfig["protocol"] {
  const raw = (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL || env.OTEL_EXPORTER_OTLP_PROTOCOL || "http/protobuf").trim().toLowerCase();
  if (raw === "http/protobuf" || raw === "http/json") return raw;
  throw new TracingConfigError(`OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: only http/protobuf or http/json are supported, got "${raw}"`);
}

export function parseTracingConfig(env: NodeJS.ProcessEnv, defaultServiceName: string): TracingConfig {
  const enabled = tracingWanted(env);
  const maxQueueSize = count(env, "OTEL_BSP_MAX_QUEUE_SIZE", 2048);
  return {
    enabled,
    serviceName: env.OTEL_SERVICE_NAME?.trim() || defaultServiceName,
    protocol: enabled ? protocol(env) : "http/protobuf",
    sampler: enabled ? sampler(env) : { kind: "always_off" },
    batch: {
      scheduledDelayMillis: count(env, "OTEL_BSP_SCHEDULE_DELAY", 5000),
      exportTimeoutMillis: count(env, "OTEL_BSP_EXPORT_TIMEOUT", 30_000),
      maxQueueSize,
      maxExportBatchSize: Math.min(count(env, "OTEL_BSP_MAX_EXPORT_BATCH_SIZE", 512), maxQueueSize),
    },
  };
}
