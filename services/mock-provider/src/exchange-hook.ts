// One preHandler for every persona: log the request, let its persona refuse
// it (auth, required headers), then resolve the script that governs the answer
// (with prompt caching on, an unscripted model call's usage is the cache model's).
// Unknown paths under a persona answer its own 404 without consuming scripts.
import type { FastifyInstance, FastifyRequest } from "fastify";
import { notFoundBody } from "./errors";
import { pathOf } from "./personas";
import type { GateFor } from "./personas";
import { sendJson } from "./respond";
import type { Exchange } from "./respond";
import { presentedKeys } from "./presented-keys";
import { cachedUsage } from "./prompt-request";
import { parseScript, ScriptError, scriptStatus } from "./scripts";
import type { MockState } from "./state";
import type { Script } from "./types";

export function exchangeOf(state: MockState, request: FastifyRequest): Exchange {
  const ex = state.exchanges.get(request);
  if (!ex) throw new Error("no exchange for request (preHandler hook did not run)");
  return ex;
}

function failsBeforeAnswering(script: Script | undefined): boolean {
  return script?.fault === "reset-before-headers" || (scriptStatus(script) ?? 200) >= 400;
}

export function registerExchangeHook(app: FastifyInstance, state: MockState, gateFor: GateFor): void {
  app.addHook("preHandler", async (request, reply) => {
    const gate = gateFor(request);
    if (!gate) return;
    const entry = state.log.record({
      method: request.method,
      path: pathOf(request.url),
      url: request.url,
      persona: gate.persona,
      headers: { ...request.headers },
      body: request.body,
      receivedAt: Date.now(),
    });
    const ex: Exchange = {
      request,
      reply,
      entry,
      persona: gate.persona,
      wire: gate.wire,
      script: undefined,
      requestId: `req_mock_${state.nextRequestId()}`,
      errorFixtures: state.fixtures.errors,
      anthropicErrorEvent: state.fixtures.anthropicErrorEvent,
    };
    state.exchanges.set(request, ex);

    const rejection = gate.reject(request, ex.requestId);
    if (rejection) {
      sendJson(ex, rejection.status, rejection.body);
      return reply;
    }
    // Unknown routes answer 404 without consuming queued scripts meant for real calls.
    if (request.routeOptions.url === undefined || gate.serves?.(request) === false) return;

    let headerScript: Script | undefined;
    const header = request.headers["x-mock-script"];
    if (header !== undefined) {
      try {
        headerScript = parseScript(JSON.parse(String(header)), state.errorFixtureNames);
      } catch (error) {
        const reason = error instanceof ScriptError ? error.message : "not valid JSON";
        sendJson(
          ex,
          400,
          gate.wire.invalidRequest(`mock-provider: invalid x-mock-script header: ${reason}`, ex.requestId, { code: "invalid_mock_script" }),
        );
        return reply;
      }
    }
    ex.script = state.scripts.resolve(
      state.rawBodies.get(request) ?? "",
      { url: request.url, credentials: presentedKeys(request) },
      headerScript,
    );
    if (ex.script) entry.script = ex.script;
    // Scripted usage wins; a call scripted to fail never reaches the model, so it caches nothing.
    if (state.promptCache.enabled && ex.script?.usage === undefined && !failsBeforeAnswering(ex.script)) {
      const usage = cachedUsage(state, request, gate.persona);
      // A new object: the log keeps the script as it was given.
      if (usage) ex.script = { ...ex.script, usage };
    }
  });

  app.setNotFoundHandler(async (request, reply) => {
    const ex = state.exchanges.get(request);
    if (ex) sendJson(ex, 404, ex.wire.notFound(request.method, request.url, ex.requestId));
    else reply.code(404).send(notFoundBody(request.method, request.url));
    return reply;
  });
}
