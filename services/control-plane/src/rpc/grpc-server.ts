// The control plane's gRPC service. Handlers are thin: authenticate the
// calling data plane, translate messages, call a service, map errors once.
// Traced, each unary call is a server span whose parent is the data plane's
// span in the call's metadata (docs/tracing.md).
import * as grpc from "@grpc/grpc-js";
import {
  AUTH_METADATA_KEY,
  bearer,
  ControlPlaneService,
  GatewayError,
  type ControlEvent,
  type ControlPlaneHandlers,
  type CostPart__Output,
  decodeDrawEntry,
  INT64_MAX,
  wireTokens,
} from "@gateway/proto";
import { NO_SPAN, NO_TRACING, TRACE_LINKS_KEY, type TraceSpan, type Tracing } from "@gateway/proto/tracing";
import { timingSafeEqual } from "node:crypto";
import type { CatalogueService } from "../catalogue/catalogue-service";
import type { Change, ChangeFeed } from "../changes/change-feed";
import { invalidRequest, unauthorized } from "../errors";
import type { DataPlaneReports } from "../health/data-plane-reports";
import type { Subscribers } from "../health/subscribers";
import type { KeyService } from "../keys/key-service";
import type { CostParts, LedgerService } from "../billing/ledger-service";
import { asGatewayError } from "../errors";
import { toServiceError } from "./service-error";

export interface RpcDependencies {
  internalToken: string;
  keyCacheTtlSeconds: number;
  keys: KeyService;
  ledger: LedgerService;
  catalogue: CatalogueService;
  changes: ChangeFeed;
  /** Where ReportState keeps the data planes' state, and this replica's name recorded with it. */
  reports: DataPlaneReports;
  replicaId: string;
  /** The open Subscribe streams, by data-plane replica. */
  subscribers: Subscribers;
  heartbeatMs?: number;
  /** Subscribe streams open at once at most (CONTROL_PLANE_MAX_SUBSCRIBERS); beyond, a new one is refused as overloaded. */
  maxSubscribers?: number;
  onError: (error: unknown) => void;
  /** Sees every unary call: its duration, outcome and request (metrics; a debug log line with the data plane's request id). */
  onCall?: (method: string, seconds: number, outcome: "ok" | "error", request: { requestId?: string; projectId?: string }) => void;
  /** Off (NO_TRACING) unless configured. */
  tracing?: Tracing;
}

/** A metadata value as a string, when there is one. */
function metadataString(metadata: grpc.Metadata, name: string): string | undefined {
  const value = metadata.get(name)[0];
  return typeof value === "string" ? value : undefined;
}

/** The call's server span: its parent the data plane's traceparent, a Draw's other requests its links. */
function serverSpan(tracing: Tracing, method: string, call: grpc.ServerUnaryCall<unknown, unknown>): TraceSpan {
  const request = call.request as { requestId?: string; leaseId?: string; draws?: unknown[] };
  const links = metadataString(call.metadata, TRACE_LINKS_KEY)?.split(",");
  return tracing.server(
    `gateway.v1.ControlPlane/${method}`,
    (name) => metadataString(call.metadata, name),
    {
      "rpc.system": "grpc",
      "rpc.service": "gateway.v1.ControlPlane",
      "rpc.method": method,
      "gateway.request_id": request.requestId || undefined,
      "gateway.lease_id": request.leaseId || undefined,
      "gateway.batch_size": request.draws?.length,
    },
    links,
  );
}

const reserveOutcomes = {
  reserved: "RESERVED",
  insufficient_credits: "INSUFFICIENT_CREDITS",
  spend_cap_exceeded: "SPEND_CAP_EXCEEDED",
  unknown_project: "UNKNOWN_PROJECT",
  key_budget_exceeded: "KEY_BUDGET_EXCEEDED",
  key_spend_cap_exceeded: "KEY_SPEND_CAP_EXCEEDED",
} as const;
const settleOutcomes = { settled: "SETTLED", already_released: "ALREADY_RELEASED", unknown_request: "UNKNOWN_REQUEST" } as const;
const drawOutcomes = { settled: "SETTLED", unknown_lease: "UNKNOWN_LEASE", failed: "FAILED" } as const;
const releaseOutcomes = {
  released: "RELEASED",
  already_settled: "ALREADY_SETTLED",
  unknown_request: "UNKNOWN_REQUEST",
  reduced: "REDUCED",
} as const;

function authorized(metadata: grpc.Metadata, token: string): boolean {
  const presented = Buffer.from(String(metadata.get(AUTH_METADATA_KEY)[0] ?? ""));
  const expected = Buffer.from(bearer(token));
  return presented.length === expected.length && timingSafeEqual(presented, expected);
}

const invalidToken = () => toServiceError(unauthorized("invalid internal token"));

/** A data plane's stream beyond the bound: retryable, it reconnects with backoff (or to another replica). */
const tooManySubscribers = (open: number) =>
  new GatewayError("overloaded", `this control plane already holds ${open} Subscribe streams (CONTROL_PLANE_MAX_SUBSCRIBERS)`);

/** A money amount from the wire: never negative (a negative debit would be a credit). */
function amount(value: string | undefined): bigint {
  const nano = BigInt(value || "0");
  if (nano < 0n) throw invalidRequest("amounts must not be negative");
  return nano;
}

/**
 * A settle's cost by component as the ledger stores it; none sent, none stored. Each part fits the
 * rollups' bigint sums (docs/money.md, "Rollups"): a part beyond them is refused, not stored to fail every roll-up.
 */
function costParts(parts: CostPart__Output[]): CostParts | undefined {
  if (parts.length === 0) return undefined;
  const stored: CostParts = {};
  for (const part of parts) {
    const nano = amount(part.nano);
    const units = Number(part.units);
    if (nano > INT64_MAX || !Number.isSafeInteger(units) || units < 0)
      throw invalidRequest("a cost part's units and nano must be whole numbers within int64");
    stored[part.component] = { units, nano: nano.toString() };
  }
  return stored;
}

/** Open Subscribe streams of one server: a stopping control plane ends them, so data planes reconnect to another replica. */
type Subscriptions = Set<grpc.ServerWritableStream<unknown, unknown>>;

export function buildHandlers(deps: RpcDependencies, subscriptions: Subscriptions = new Set()): ControlPlaneHandlers {
  const tracing = deps.tracing ?? NO_TRACING;
  function unary<Request, Response>(
    method: string,
    work: (request: Request) => Promise<Response>,
  ): grpc.handleUnaryCall<Request, Response> {
    return (call, callback) => {
      if (!authorized(call.metadata, deps.internalToken)) {
        callback(invalidToken());
        return;
      }
      const started = performance.now();
      const span = tracing.enabled ? serverSpan(tracing, method, call) : NO_SPAN;
      const done = (outcome: "ok" | "error") =>
        deps.onCall?.(method, (performance.now() - started) / 1000, outcome, call.request as { requestId?: string; projectId?: string });
      work(call.request).then(
        (response) => {
          done("ok");
          span.end();
          callback(null, response);
        },
        (error: unknown) => {
          done("error");
          if (!(error instanceof GatewayError)) deps.onError(error);
          const failure = asGatewayError(error);
          span.fail(failure.kind);
          span.end();
          callback(toServiceError(failure));
        },
      );
    };
  }

  return {
    ValidateKey: unary("ValidateKey", async (request) => {
      const result = await deps.keys.validate(request.key);
      return {
        valid: result.valid,
        projectId: result.projectId,
        keyId: result.keyId,
        limits: result.rpmLimit === null ? {} : { rpmLimit: result.rpmLimit },
        cacheTtlSeconds: deps.keyCacheTtlSeconds,
        ...(result.key
          ? {
              keyLimits: {
                ...(result.key.rpmLimit === null ? {} : { rpmLimit: result.key.rpmLimit }),
                moneyLimits: result.key.moneyLimits,
                expiresAtUnixMs: String(result.key.expiresAt?.getTime() ?? 0),
                limitsKeyId: result.key.limitsKeyId,
              },
            }
          : {}),
      };
    }),
    GetCatalogue: unary("GetCatalogue", () => deps.catalogue.snapshot()),
    Reserve: unary("Reserve", async (request) => {
      const result = await deps.ledger.reserve({
        requestId: request.requestId,
        projectId: request.projectId,
        amountNano: amount(request.amountNano),
        minAmountNano: amount(request.minAmountNano),
        model: request.model,
        accessPath: request.accessPath,
        keyId: request.keyId,
      });
      return {
        outcome: reserveOutcomes[result.outcome],
        retryAfterSeconds: result.retryAfterSeconds,
        availableNano: result.availableNano.toString(),
        reservedNano: result.reservedNano.toString(),
        ttlSeconds: result.ttlSeconds,
      };
    }),
    CheckSpend: unary("CheckSpend", async (request) => {
      const result = await deps.ledger.checkSpend(request.projectId, request.keyId || undefined);
      return {
        outcome: reserveOutcomes[result.outcome],
        retryAfterSeconds: result.retryAfterSeconds,
        availableNano: result.availableNano.toString(),
        reservedNano: "0",
        ttlSeconds: 0,
      };
    }),
    Settle: unary("Settle", async (request) => {
      const result = await deps.ledger.settle({
        requestId: request.requestId,
        projectId: request.projectId,
        amountNano: amount(request.amountNano),
        model: request.model,
        accessPath: request.accessPath,
        inputTokens: wireTokens(request.inputTokens),
        outputTokens: wireTokens(request.outputTokens),
        costParts: costParts(request.costParts),
      });
      return { outcome: settleOutcomes[result.outcome], debitedNano: result.debitedNano.toString() };
    }),
    Release: unary("Release", async (request) => ({
      outcome: releaseOutcomes[await deps.ledger.release(request.requestId, request.projectId, amount(request.keepNano))],
    })),
    Lease: unary("Lease", async (request) => {
      const result = await deps.ledger.lease({
        leaseId: request.leaseId,
        projectId: request.projectId,
        amountNano: amount(request.amountNano),
        minAmountNano: amount(request.minAmountNano),
      });
      // draw_entries: this control plane takes each draw as its entry's bytes (older data planes send fields).
      return { granted: result.granted, amountNano: result.amountNano.toString(), ttlSeconds: result.ttlSeconds, drawEntries: true };
    }),
    Draw: unary("Draw", async (request) => {
      // An entry that does not check, or fields with a negative amount, is refused alone (INVALID); the others go ahead.
      const inputs = request.draws.map((draw) => {
        if (draw.entry.length > 0) return decodeDrawEntry(draw.entry);
        try {
          return {
            requestId: draw.requestId,
            leaseId: draw.leaseId,
            projectId: draw.projectId,
            amountNano: amount(draw.amountNano),
            holdNano: amount(draw.holdNano),
            model: draw.model,
            accessPath: draw.accessPath,
            inputTokens: wireTokens(draw.inputTokens),
            outputTokens: wireTokens(draw.outputTokens),
            costParts: draw.costParts.map((part) => ({ component: part.component, units: Number(part.units), nano: amount(part.nano) })),
            keyId: draw.keyId,
          };
        } catch {
          return undefined;
        }
      });
      const results = await deps.ledger.draw(inputs.filter((input) => input !== undefined));
      let next = 0;
      return {
        results: inputs.map((input) => {
          if (!input) return { outcome: "INVALID" as const, debitedNano: "0" };
          const result = results[next++]!;
          return { outcome: drawOutcomes[result.outcome], debitedNano: result.debitedNano.toString() };
        }),
      };
    }),
    Renew: unary("Renew", async (request) => ({
      active: await deps.ledger.renew(request.holds.map((hold) => ({ requestId: hold.requestId, projectId: hold.projectId }))),
      ttlSeconds: deps.ledger.holdTtlSeconds,
    })),
    ReportState: unary("ReportState", async (request) => {
      await deps.reports.record(request, deps.replicaId);
      return {};
    }),
    Subscribe: (call) => {
      // `emit("error")` ends the stream with that status (grpc-js); `destroy` sent none and kept the stream open.
      if (!authorized(call.metadata, deps.internalToken)) {
        call.emit("error", invalidToken());
        return;
      }
      if (subscriptions.size >= (deps.maxSubscribers ?? Number.POSITIVE_INFINITY)) {
        call.emit("error", toServiceError(tooManySubscribers(subscriptions.size)));
        return;
      }
      // Events are written in order; a catalogue snapshot read is awaited in
      // that order too, so a revocation never overtakes an earlier reload.
      let queue = Promise.resolve();
      const send = (event: () => Promise<ControlEvent> | ControlEvent) => {
        queue = queue
          .then(async () => {
            if (!call.cancelled) call.write(await event());
          })
          .catch((error: unknown) => deps.onError(error));
      };
      const unsubscribe = deps.changes.subscribe((change: Change) => {
        if (change.kind === "catalogue") send(async () => ({ catalogue: await deps.catalogue.snapshot() }));
        if (change.kind === "key_revoked") send(() => ({ keyRevoked: { projectId: change.projectId, keyId: change.keyId } }));
        if (change.kind === "key_changed") send(() => ({ keyChanged: { projectId: change.projectId, keyId: change.keyId } }));
        if (change.kind === "project_changed") {
          send(() => ({
            projectChanged: { projectId: change.projectId, limits: change.rpmLimit === null ? {} : { rpmLimit: change.rpmLimit } },
          }));
        }
      });
      send(async () => ({ catalogue: await deps.catalogue.snapshot() }));
      const heartbeat = setInterval(() => send(() => ({ heartbeat: { unixMs: String(Date.now()) } })), deps.heartbeatMs ?? 5000);
      const forgetSubscriber = deps.subscribers.add(call.request.replicaId);
      const stop = () => {
        clearInterval(heartbeat);
        unsubscribe();
        forgetSubscriber();
      };
      call.on("cancelled", stop);
      call.on("close", stop);
      call.on("error", stop);
      subscriptions.add(call);
      const forget = () => subscriptions.delete(call);
      call.on("cancelled", forget);
      call.on("close", forget);
      call.on("error", forget);
    },
  };
}

export interface RunningGrpcServer {
  port: number;
  /**
   * Graceful stop: ends the subscription streams (data planes reconnect elsewhere), lets unary
   * calls in flight finish (their money work completes), and forces the rest after `drainMs`.
   */
  shutdown(drainMs: number): Promise<void>;
}

/** `credentials`: TLS (grpc-tls.ts) or, unless given, none. */
export async function startGrpcServer(
  deps: RpcDependencies,
  host: string,
  port: number,
  credentials: grpc.ServerCredentials = grpc.ServerCredentials.createInsecure(),
): Promise<RunningGrpcServer> {
  const server = new grpc.Server({ "grpc.keepalive_permit_without_calls": 1, "grpc.http2.min_ping_interval_without_data_ms": 5000 });
  const subscriptions: Subscriptions = new Set();
  server.addService(ControlPlaneService, buildHandlers(deps, subscriptions));
  const boundPort = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`${host}:${port}`, credentials, (error, bound) => (error ? reject(error) : resolve(bound))),
  );
  return {
    port: boundPort,
    shutdown: (drainMs) =>
      new Promise<void>((resolve) => {
        const force = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, drainMs);
        server.tryShutdown(() => {
          clearTimeout(force);
          resolve();
        });
        for (const call of subscriptions) call.end();
        subscriptions.clear();
      }),
  };
}
