// The data plane's side of the gRPC contract: promise-returning calls with a
// deadline and the shared token, and a subscription that reconnects with
// backoff and keeps the last good state while the control plane is away.
import * as grpc from "@grpc/grpc-js";
import {
  AUTH_METADATA_KEY,
  bearer,
  ControlPlaneClientConstructor,
  type ControlEvent__Output,
  type DataPlaneReport,
  ERROR_CODE_METADATA_KEY,
  ERROR_TABLE,
  isErrorCode,
  type ControlPlaneClient,
  type DrawResponse__Output,
  type LeaseResponse__Output,
  type ReleaseResponse__Output,
  type RenewResponse__Output,
  type ReserveResponse__Output,
  type SettleResponse__Output,
  type ValidateKeyResponse__Output,
  wireAmount,
} from "@gateway/proto";
import { MAX_TRACE_LINKS, TRACE_LINKS_KEY, TRACEPARENT_KEY, TRACESTATE_KEY, type TraceSpan } from "@gateway/proto/tracing";
import { controlPlaneUnavailable, type GatewayError, internalError } from "../errors";
import { type CallEnd, StallCircuit } from "./stall-circuit";

export interface ReserveCall {
  requestId: string;
  projectId: string;
  amountNano: bigint;
  /** 0: the full amount or a refusal; > 0: a smaller hold of at least this much is acceptable. */
  minAmountNano: bigint;
  model: string;
  accessPath: string;
  /** The request's API key: its own budget and daily cap bound the hold too. */
  keyId?: string;
}

/** A component of a request's cost, named as in the catalogue (docs/catalogue.md), with the units billed at it. */
export interface CostPart {
  component: string;
  /** Tokens, or images, requests, searches. */
  units: number;
  /** Its share, rounded down; the `rounding` part carries what the one rounding up adds. */
  nano: bigint;
}

export interface SettleCall {
  requestId: string;
  projectId: string;
  amountNano: bigint;
  model: string;
  accessPath: string;
  inputTokens: number;
  outputTokens: number;
  /** The cost by component (billing/pricing.ts), for the ledger's split. */
  costParts?: readonly CostPart[];
}

/** One request's debit from a budget lease. */
export interface DrawCall {
  requestId: string;
  leaseId: string;
  projectId: string;
  amountNano: bigint;
  /** What the request set aside from the lease: the most it may debit. */
  holdNano: bigint;
  model: string;
  accessPath: string;
  inputTokens: number;
  outputTokens: number;
  /** The cost by component (billing/pricing.ts), for the ledger's split. */
  costParts?: readonly CostPart[];
  /** The request's API key, recorded on its debit. */
  keyId?: string;
  /**
   * The draw encoded once (@gateway/proto's encodeDrawEntry), for a lease whose control plane takes
   * entries: the journal holds this text and the Draw call sends its bytes instead of the fields.
   */
  entry?: string;
}

/**
 * gRPC statuses of a call that carried no error code (it never reached the control plane, or was cut): an outage.
 * UNIMPLEMENTED too: an older control plane during a rolling upgrade (CheckSpend), a 503 to retry, not a bug.
 */
const OUTAGE_STATUSES: ReadonlySet<number> = new Set([
  grpc.status.UNAVAILABLE,
  grpc.status.UNIMPLEMENTED,
  grpc.status.DEADLINE_EXCEEDED,
  grpc.status.CANCELLED,
  grpc.status.RESOURCE_EXHAUSTED,
]);

/**
 * A failed call as the data plane's error. The control plane names its error's code in the
 * metadata; the table says whether that is an outage (ridden out: retried, stale keys served) or
 * its own failure (a bug, a refused token: not retried at once). Without a code, the status decides.
 */
function callFailure(error: grpc.ServiceError | null): GatewayError {
  const code = error?.metadata?.get(ERROR_CODE_METADATA_KEY)[0];
  const outage = !error || (isErrorCode(code) ? ERROR_TABLE[code].retryable : OUTAGE_STATUSES.has(error.code));
  return Object.assign(outage ? controlPlaneUnavailable() : internalError("The control plane failed the call."), { cause: error });
}

const STALLED_MESSAGE = "The control plane is not answering in time (its database may be stalled). Retry shortly.";

/** An answer, even a refusal, came in time; only a deadline run out says the control plane is stalled. */
function callEnd(error: grpc.ServiceError | null, response: unknown): CallEnd {
  if (error?.code === grpc.status.DEADLINE_EXCEEDED) return "deadline";
  return error || !response ? "failed" : "answered";
}

/** Cost parts for the wire: an absurd cost (an upstream's nonsense usage) is kept at int64's maximum instead of wrapping negative (wireAmount). */
const wireParts = (parts: readonly CostPart[] | undefined) =>
  (parts ?? []).map((part) => ({ component: part.component, units: part.units, nano: wireAmount(part.nano) }));

export class ControlPlaneClientWrapper {
  private readonly client: ControlPlaneClient;
  private readonly metadata = new grpc.Metadata();
  private subscription: grpc.ClientReadableStream<ControlEvent__Output> | undefined;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private closed = false;
  /** Last time an event (or heartbeat) arrived on the subscription. */
  lastContactMs = 0;
  connected = false;
  /** Open while calls run out their deadline: admission calls then fail at once (stall-circuit.ts). */
  readonly stall: StallCircuit;

  /** `credentials`: TLS (control-plane-tls.ts) or, unless given, none. */
  constructor(
    address: string,
    token: string,
    private readonly deadlineMs: number,
    credentials: grpc.ChannelCredentials = grpc.credentials.createInsecure(),
  ) {
    this.client = new ControlPlaneClientConstructor(address, credentials, {
      "grpc.keepalive_time_ms": 10_000,
      "grpc.keepalive_timeout_ms": 5_000,
      "grpc.keepalive_permit_without_calls": 1,
      "grpc.initial_reconnect_backoff_ms": 200,
      "grpc.max_reconnect_backoff_ms": 2_000,
      "grpc.max_receive_message_length": 64 * 1024 * 1024,
    });
    this.metadata.set(AUTH_METADATA_KEY, bearer(token));
    this.stall = new StallCircuit(deadlineMs);
  }

  /** Sees every unary call's duration and outcome (metrics). */
  observe: (method: string, seconds: number, outcome: "ok" | "error") => void = () => {};

  /**
   * One call with the deadline. `admits`: the call lets a request in (a key check, a hold, a lease), so while
   * the control plane is known to be stalled it fails at once unless it is the probe; `background`: a money
   * call a request already made (its outcome still tells the stall circuit); `report`: the operators' state
   * report, unseen by the stall circuit (a late one must not turn requests away).
   */
  private unary<Request, Response>(
    role: "admits" | "background" | "report",
    name: string,
    method: (
      request: Request,
      metadata: grpc.Metadata,
      options: grpc.CallOptions,
      callback: grpc.requestCallback<Response>,
    ) => grpc.ClientUnaryCall,
    request: Request,
    span?: TraceSpan,
    links?: readonly string[],
  ): Promise<Response> {
    const { go, probe } = role === "admits" ? this.stall.admit() : { go: true, probe: false };
    if (!go) return Promise.reject(controlPlaneUnavailable(STALLED_MESSAGE));
    const started = performance.now();
    const metadata = span ? this.traced(span, links) : this.metadata;
    return new Promise((resolve, reject) => {
      method.call(this.client, request, metadata, { deadline: Date.now() + this.deadlineMs }, (error, response) => {
        this.observe(name, (performance.now() - started) / 1000, error || !response ? "error" : "ok");
        if (role !== "report") this.stall.ended(callEnd(error, response), probe);
        if (error || !response) reject(callFailure(error));
        else resolve(response);
      });
    });
  }

  /**
   * The shared metadata plus the span's traceparent (and a batch's other requests' as links), for
   * the control plane's server span; the shared metadata alone when the span is not traced.
   */
  private traced(span: TraceSpan, links: readonly string[] | undefined): grpc.Metadata {
    const headers = span.headers();
    if (!headers) return this.metadata;
    const metadata = this.metadata.clone();
    if (headers.traceparent) metadata.set(TRACEPARENT_KEY, headers.traceparent);
    if (headers.tracestate) metadata.set(TRACESTATE_KEY, headers.tracestate);
    if (links?.length) metadata.set(TRACE_LINKS_KEY, links.join(","));
    return metadata;
  }

  /** `span`, here and below: the data plane's span the call is made under, carried to the control plane. */
  validateKey(key: string, span?: TraceSpan): Promise<ValidateKeyResponse__Output> {
    return this.unary("admits", "ValidateKey", this.client.validateKey, { key }, span);
  }

  reserve(call: ReserveCall, span?: TraceSpan): Promise<ReserveResponse__Output> {
    return this.unary(
      "admits",
      "Reserve",
      this.client.reserve,
      { ...call, amountNano: wireAmount(call.amountNano), minAmountNano: wireAmount(call.minAmountNano) },
      span,
    );
  }

  /** What a Reserve for this project and key would answer, placing nothing (a free call the paid one's refusals apply to). */
  checkSpend(projectId: string, keyId: string, span?: TraceSpan): Promise<ReserveResponse__Output> {
    return this.unary("admits", "CheckSpend", this.client.checkSpend, { projectId, keyId }, span);
  }

  settle(call: SettleCall, span?: TraceSpan): Promise<SettleResponse__Output> {
    return this.unary(
      "background",
      "Settle",
      this.client.settle,
      { ...call, amountNano: wireAmount(call.amountNano), costParts: wireParts(call.costParts) },
      span,
    );
  }

  /** `keepNano` > 0: a budget lease gives back only what it holds above that, and stays active. */
  release(requestId: string, projectId: string, keepNano = 0n, span?: TraceSpan): Promise<ReleaseResponse__Output> {
    return this.unary("background", "Release", this.client.release, { requestId, projectId, keepNano: wireAmount(keepNano) }, span);
  }

  lease(leaseId: string, projectId: string, amountNano: bigint, minAmountNano: bigint, span?: TraceSpan): Promise<LeaseResponse__Output> {
    const request = { leaseId, projectId, amountNano: wireAmount(amountNano), minAmountNano: wireAmount(minAmountNano) };
    return this.unary("admits", "Lease", this.client.lease, request, span);
  }

  /** `spans`: the draws' own spans, when traced; the first is the call's parent, the others its links. */
  draw(draws: DrawCall[], spans?: readonly TraceSpan[]): Promise<DrawResponse__Output> {
    const request = {
      draws: draws.map(({ entry, ...draw }) =>
        entry !== undefined
          ? { entry: Buffer.from(entry) }
          : { ...draw, amountNano: wireAmount(draw.amountNano), holdNano: wireAmount(draw.holdNano), costParts: wireParts(draw.costParts) },
      ),
    };
    if (!spans?.length) return this.unary("background", "Draw", this.client.draw, request);
    const links = spans
      .slice(1, MAX_TRACE_LINKS + 1)
      .filter((span) => span.recording)
      .flatMap((span) => span.headers()?.traceparent ?? []);
    return this.unary("background", "Draw", this.client.draw, request, spans[0], links);
  }

  /** Renews active holds and leases of running requests (hold-renewal.ts). */
  renew(holds: { requestId: string; projectId: string }[]): Promise<RenewResponse__Output> {
    return this.unary("background", "Renew", this.client.renew, { holds });
  }

  /**
   * This replica's state for the operators. Not seen by the stall circuit: a report is not a request's
   * business, and a late one must not turn requests away.
   */
  async reportState(report: DataPlaneReport): Promise<void> {
    await this.unary("report", "ReportState", this.client.reportState, report);
  }

  /** Subscribes to control events; re-subscribes after any break, forever, until close(). */
  subscribe(replicaId: string, onEvent: (event: ControlEvent__Output) => void, onError: (error: unknown) => void): void {
    if (this.closed) return;
    const stream = this.client.subscribe({ replicaId }, this.metadata);
    this.subscription = stream;
    stream.on("data", (event: ControlEvent__Output) => {
      this.connected = true;
      this.lastContactMs = Date.now();
      try {
        onEvent(event);
      } catch (error) {
        onError(error);
      }
    });
    const retry = () => {
      if (this.subscription !== stream) return;
      this.subscription = undefined;
      this.connected = false;
      if (this.closed) return;
      this.reconnectTimer = setTimeout(() => this.subscribe(replicaId, onEvent, onError), 500);
    };
    stream.on("error", (error: grpc.ServiceError) => {
      if (error.code !== grpc.status.CANCELLED && error.code !== grpc.status.UNAVAILABLE) onError(error);
      retry();
    });
    stream.on("end", retry);
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    this.subscription?.cancel();
    this.client.close();
  }
}
