// The request engine: one path for every client dialect and answer form. A
// client's body is read by its dialect, planned (models, paths, hold), sent
// through the attempts, and its answer relayed and billed by the pipeline.
import type { TraceSpan } from "@gateway/proto/tracing";
import type { ClientReply } from "./client-reply";
import type { KeyIdentity } from "../auth/key-cache";
import type { CatalogueSnapshot } from "../catalogue/catalogue-snapshot";
import type { ClientDialect, ClientRequest } from "../dialects/client-dialect";
import { controlPlaneUnavailable, GatewayError, streamFailed } from "../errors";
import type { GenAiMetrics } from "../gen-ai-metrics";
import type { CounterFamily, HistogramFamily, UsdCounterFamily } from "../metric-families";
import type { KeyPool } from "../providers/key-pool/key-pool";
import type { UpstreamProvider } from "../providers/upstream-provider";
import type { PinStore } from "../routing/affinity-pins";
import type { PathHealth } from "../routing/path-health";
import { reasonHeader } from "../routing/route-trace";
import type { AttemptSettings } from "./attempt-policy";
import { Call } from "./call";
import { type AffinitySettings, CallAffinity } from "./call-affinity";
import { countTokens, type TokenCount } from "./count-tokens";
import { type CallBilling, CallMoney } from "./call-money";
import { type PlanContext, planCall } from "./call-plan";
import { type ClientLink, clientLink } from "./client-link";
import { type RelayContext, relayAnswer } from "./relay-answer";
import { SseResponse } from "./sse-response";
import { type AttemptContext, type AttemptMetrics, UpstreamAttempts } from "./upstream-attempts";

export interface EngineSettings extends AttemptSettings {
  streamIdleTimeoutMs: number;
  /** The largest whole answer, or single stream event, read from an upstream (upstream/body-limit.ts). */
  maxBodyBytes: number;
  sseKeepAliveMs: number;
  clientDisconnectDrainMs: number;
  /** Same-dialect answers relayed as the upstream's bytes (byte-event-decoder.ts, chat-byte-relay.ts). */
  relayBytes: boolean;
}

export interface EngineMetrics extends AttemptMetrics {
  upstreamFirstEvent: HistogramFamily;
  /** Upstream stream events that were not the JSON their protocol promises, by provider and content_lost. */
  upstreamMalformedEvents: CounterFamily;
  /** Computed cost the ledger did not take, by model and access path. */
  unbilledUsd: UsdCounterFamily;
  genAi: GenAiMetrics;
  /** Turns of conversations by what became of their pin. */
  affinityTurns: CounterFamily;
}

export interface EngineDependencies {
  /** The last good catalogue; undefined until the first one arrives. */
  catalogue: () => CatalogueSnapshot | undefined;
  providers: ReadonlyMap<string, UpstreamProvider>;
  /** Each `<NAME>_API_KEY` variable's pool of keys. */
  credentials: ReadonlyMap<string, KeyPool>;
  health: PathHealth;
  billing: CallBilling;
  metrics: EngineMetrics;
  settings: EngineSettings;
  /** Where conversations are pinned (routing/affinity-pins.ts). */
  pins: PinStore;
  affinity: AffinitySettings;
}

/** What a route hands the engine: the request as fastify read it. */
export interface IncomingCall {
  requestId: string;
  identity: KeyIdentity;
  body: unknown;
  /** The request's headers (lower-case names), for a dialect that reads some. */
  headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The body's size as received, when known. */
  bodyBytes?: number;
  /** performance.now() once the body was read. */
  readAt: number;
  /** The request's server span, when tracing is on. */
  span?: TraceSpan;
}

export class Engine {
  private readonly money: CallMoney;
  private readonly planContext: PlanContext;
  private readonly attemptContext: AttemptContext;
  private readonly affinity: CallAffinity;

  constructor(private readonly deps: EngineDependencies) {
    this.affinity = new CallAffinity(deps.pins, deps.affinity, deps.metrics.affinityTurns);
    this.money = new CallMoney(deps.billing, deps.metrics.overhead.series("after_upstream"), deps.metrics.unbilledUsd, deps.metrics.genAi);
    this.planContext = { ...deps, maxAttempts: deps.settings.maxAttempts };
    this.attemptContext = { health: deps.health, settings: deps.settings, metrics: deps.metrics, money: this.money };
  }

  /** Reads and plans a call, a conversation's turn after its pin; throws the caller-facing error (400, 503 without a catalogue). */
  async prepare(dialect: ClientDialect, incoming: IncomingCall): Promise<Call> {
    const request = dialect.parse(incoming.body, incoming.headers);
    if (!this.deps.catalogue()) throw controlPlaneUnavailable();
    const { identity } = incoming;
    const turn = await this.affinity.turnOf(identity.projectId, dialect.name, request, incoming.headers, incoming.span);
    // Read after the pin's lookup: a catalogue that arrived meanwhile is the one to plan with.
    const catalogue = this.deps.catalogue()!;
    const plan = planCall(this.planContext, catalogue, incoming.requestId, identity, dialect, request, incoming.bodyBytes, turn);
    return new Call(plan, incoming.readAt, incoming.span, turn?.conversation);
  }

  /**
   * A request's input tokens, counted upstream where the dialect's own upstream can, else estimated;
   * not billed, but refused for money as the call would be (no balance, budget or cap room).
   */
  countTokens(dialectName: string, request: ClientRequest, identity: KeyIdentity, span?: TraceSpan): Promise<TokenCount> {
    const catalogue = this.deps.catalogue();
    if (!catalogue) throw controlPlaneUnavailable();
    const admit = () => this.deps.billing.checkSpend(identity.projectId, identity.keyId, span);
    return countTokens(this.deps, catalogue, dialectName, request, admit);
  }

  /** Serves a prepared call: a whole answer is sent, a stream written; failures before anything was sent are thrown. */
  async serve(call: Call, reply: ClientReply): Promise<ClientReply> {
    const client = clientLink(reply, this.deps.settings.clientDisconnectDrainMs);
    if (call.plan.request.stream) {
      await this.stream(call, reply, client);
      return reply;
    }
    const answer = await this.whole(call, reply, client);
    if (call.plan.dialect.routingHeaders) reply.headers(routingHeaders(call));
    // The upstream's own bytes, completed: one write with its Content-Length.
    if (answer.bytes) return reply.type("application/json; charset=utf-8").send(answer.bytes);
    return reply.send(answer.body);
  }

  private async whole(call: Call, reply: ClientReply, client: ClientLink): Promise<{ body?: Record<string, unknown>; bytes?: Buffer }> {
    const context = this.relayContext(call, reply, client, undefined);
    try {
      for (;;) {
        const response = await context.attempts.open();
        const result = await relayAnswer(context, response);
        if (result.kind === "relayed") {
          this.affinity.answered(call);
          return result;
        }
      }
    } catch (error) {
      await this.money.releaseIfOpen(call);
      throw error;
    } finally {
      context.attempts.close();
    }
  }

  private async stream(call: Call, reply: ClientReply, client: ClientLink): Promise<void> {
    const { settings } = this.deps;
    const sse = new SseResponse(reply, settings.sseKeepAliveMs, settings.streamIdleTimeoutMs, (soFar) => routingHeaders(call, soFar));
    const context = this.relayContext(call, reply, client, sse);
    try {
      for (;;) {
        const response = await context.attempts.open();
        if ((await relayAnswer(context, response)).kind === "relayed") break;
      }
      this.affinity.answered(call);
      sse.end();
    } catch (error) {
      await this.money.releaseIfOpen(call);
      if (!sse.committed) {
        sse.stop();
        throw error; // the app's error handler answers with the status and the dialect's error body
      }
      // The headers went out with a keep-alive comment: the failure can only be an event.
      const failure = error instanceof GatewayError ? error : streamFailed();
      if (failure.kind !== "client_closed") sse.addLast(call.plan.dialect.errorFrame(failure));
      sse.end(); // with the error event, in one write
    } finally {
      context.attempts.close();
    }
  }

  private relayContext(call: Call, reply: ClientReply, client: ClientLink, sse: SseResponse | undefined): RelayContext {
    const { settings, metrics } = this.deps;
    return {
      call,
      client,
      attempts: new UpstreamAttempts(this.attemptContext, call, client),
      money: this.money,
      sse,
      streamIdleTimeoutMs: settings.streamIdleTimeoutMs,
      maxBodyBytes: settings.maxBodyBytes,
      relayBytes: settings.relayBytes,
      firstEvent: metrics.upstreamFirstEvent,
      genAi: metrics.genAi,
      malformedEvent: (event, lost) => {
        const provider = call.target.path.provider;
        metrics.upstreamMalformedEvents.series(provider, String(lost)).inc();
        // Its name and size only: the data may hold the answer's text.
        reply.log.warn(
          { provider, model: call.target.model.id, event: event?.event, bytes: event?.data.length, content_lost: lost },
          "malformed upstream SSE event",
        );
      },
    };
  }
}

/** Headers every chat answer carries: the model that answered (or, `soFar`, the one being tried) and the routing line. */
function routingHeaders(call: Call, soFar = false): Record<string, string> {
  return { "x-service-model": call.target.model.id, "x-service-reason": reasonHeader(call.plan.trace, soFar) };
}
