// The routing trace: `service.reason` in non-streamed bodies of requests that
// had a `service` block, and the X-Service-Model / X-Service-Reason headers
// on every chat response (docs/routing.md, "Trace").
import { type AffinityTrace, affinityWords } from "./affinity";

export interface Attempt {
  model: string;
  path: string;
  /** ok, http_<status>, timeout, unreachable, stream_failed, body_unreadable, body_too_large, client_closed, or "skipped: <why>" (never sent). */
  outcome: string;
  ms: number;
}

export interface RouteTrace {
  requested: string;
  resolved: string;
  tier: string | null;
  purpose: string | null;
  candidates: string[];
  excluded: { model: string; why: string }[];
  attempts: Attempt[];
  path: string;
  /** Set when the balance or cap could not cover the model's maximum output and max_tokens was capped to this. */
  max_tokens_capped?: number;
  /** For a turn of a conversation: whether its pin was kept, or gave way and why. */
  affinity?: AffinityTrace;
}

/**
 * One header-safe line, e.g. `auto:balanced -> openai/gpt-4.1-mini via openai, 1 attempt` (skipped paths are not attempts).
 * `soFar`: the attempts are not over (a stream's headers sent early); the line says so instead of stating an outcome.
 */
export function reasonHeader(trace: RouteTrace, soFar = false): string {
  const target = trace.requested === trace.resolved ? trace.resolved : `${trace.requested} -> ${trace.resolved}`;
  const attempts = trace.attempts.filter((attempt) => !attempt.outcome.startsWith("skipped")).length;
  const capped = trace.max_tokens_capped === undefined ? "" : `, max_tokens capped to ${trace.max_tokens_capped}`;
  // A first turn (no pin yet) is said in the trace only: the line speaks of a pin kept or given way.
  const affinity = trace.affinity && trace.affinity.state !== "new" ? `, ${affinityWords(trace.affinity)}` : "";
  const line = `${target} via ${trace.path}, ${attempts} attempt${attempts === 1 ? "" : "s"}${soFar ? " so far" : ""}${capped}${affinity}`;
  return line.replace(/[^\x20-\x7e]/g, "?");
}
