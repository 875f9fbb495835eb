// Test-side control of the mock: the in-process API (`app.mock`) and the same
// operations over HTTP under /_mock (no auth: tests reach it directly, the
// gateway under test never does).
import type { FastifyInstance } from "fastify";
import { openAIError } from "./errors";
import { isRecord } from "./json";
import type { PromptCacheStats } from "./prompt-cache";
import { parseMatchScript, parseScript, ScriptError } from "./scripts";
import type { MockState } from "./state";
import type { MatchScript, RecordedRequest, Script } from "./types";

export interface MockControl {
  /** Recorded /v1 requests, optionally only those with index >= since. */
  requests(since?: number): RecordedRequest[];
  lastRequest(): RecordedRequest | undefined;
  /** Queue a match script (validated; throws on a bad script). */
  addScript(script: MatchScript): void;
  /** Queued match scripts with their remaining `times`. */
  scripts(): MatchScript[];
  clearScripts(): void;
  /** Replace the runtime default script (undefined = back to the options default). */
  setDefaultScript(script: Script | undefined): void;
  /** Clear the log, queued scripts and the runtime default script; prompt caching back to the options (no entries, stats or account mapping). */
  reset(): void;
  /** The prompt-cache model (README, "Prompt caching"). */
  promptCache: {
    setEnabled(enabled: boolean): void;
    stats(): PromptCacheStats;
    /** Forget the cached prefixes and the stats. */
    clear(): void;
    /** Credentials -> account names (keys of one account share its cache); added to the mapping so far. */
    mapAccounts(mapping: Record<string, string>): void;
  };
}

export function createControl(state: MockState): MockControl {
  return {
    requests: (since) => state.log.list(since),
    lastRequest: () => state.log.last(),
    addScript: (script) => state.scripts.add(parseMatchScript(script, state.errorFixtureNames)),
    scripts: () => state.scripts.list(),
    clearScripts: () => state.scripts.clearMatchScripts(),
    setDefaultScript: (script) => state.scripts.setDefault(script === undefined ? undefined : parseScript(script, state.errorFixtureNames)),
    reset: () => {
      state.log.clear();
      state.scripts.reset();
      state.promptCache.reset();
    },
    promptCache: {
      setEnabled: (enabled) => {
        state.promptCache.enabled = enabled;
      },
      stats: () => state.promptCache.stats(),
      clear: () => state.promptCache.clear(),
      mapAccounts: (mapping) => state.promptCache.mapAccounts(mapping),
    },
  };
}

function badScript(error: unknown) {
  if (!(error instanceof ScriptError)) throw error;
  return openAIError(`mock-provider: ${error.message}`, "invalid_request_error", "invalid_mock_script");
}

export function registerControlRoutes(app: FastifyInstance, control: MockControl): void {
  app.get("/_mock/health", async () => ({ status: "ok" }));

  app.get<{ Querystring: { since?: string } }>("/_mock/requests", async (request, reply) => {
    const raw = request.query.since;
    if (raw === undefined) return { requests: control.requests() };
    const since = Number(raw);
    if (!Number.isInteger(since) || since < 0) {
      return reply.code(400).send(openAIError("since must be a non-negative integer"));
    }
    return { requests: control.requests(since) };
  });

  app.get("/_mock/requests/last", async (_request, reply) => {
    const last = control.lastRequest();
    if (!last) return reply.code(404).send(openAIError("no requests recorded", "invalid_request_error", "not_found"));
    return last;
  });

  app.post("/_mock/reset", async () => {
    control.reset();
    return { ok: true };
  });

  app.get("/_mock/scripts", async () => ({ scripts: control.scripts() }));

  app.post("/_mock/scripts", async (request, reply) => {
    try {
      control.addScript(request.body as MatchScript);
    } catch (error) {
      return reply.code(400).send(badScript(error));
    }
    return { ok: true, queued: control.scripts().length };
  });

  app.delete("/_mock/scripts", async () => {
    control.clearScripts();
    return { ok: true };
  });

  app.post("/_mock/default-script", async (request, reply) => {
    try {
      control.setDefaultScript(request.body as Script);
    } catch (error) {
      return reply.code(400).send(badScript(error));
    }
    return { ok: true };
  });

  app.delete("/_mock/default-script", async () => {
    control.setDefaultScript(undefined);
    return { ok: true };
  });

  app.get("/_mock/prompt-cache", async () => control.promptCache.stats());

  app.post("/_mock/prompt-cache", async (request, reply) => {
    const enabled = isRecord(request.body) ? request.body.enabled : undefined;
    if (typeof enabled !== "boolean") return reply.code(400).send(openAIError('body must be {"enabled": true|false}'));
    control.promptCache.setEnabled(enabled);
    return { ok: true, enabled };
  });

  app.delete("/_mock/prompt-cache", async () => {
    control.promptCache.clear();
    return { ok: true };
  });

  app.post("/_mock/prompt-cache/accounts", async (request, reply) => {
    const body = request.body;
    if (!isRecord(body) || !Object.values(body).every((name) => typeof name === "string" && name !== "")) {
      return reply.code(400).send(openAIError('body must map credentials to account names: {"<credential>": "<account>"}'));
    }
    control.promptCache.mapAccounts(body as Record<string, string>);
    return { ok: true, mapped: Object.keys(body).length };
  });
}
