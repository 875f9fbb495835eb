// What the model calls' hooks read and write, as plain types: fastify's request and reply have these
// members (CallState is declared on fastify's request below), and so do the front door's own
// (app/front-door-exchange.ts), so each hook is one function run by either (docs/architecture.md, "The front door").
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";
import type { TraceSpan } from "@gateway/proto/tracing";
import type { FastifyBaseLogger } from "fastify";
import type { KeyIdentity } from "./auth/key-cache";
import type { ClientDialect } from "./dialects/client-dialect";
import type { Call } from "./engine/call";
import type { RateAnswer } from "./limits/rate-limiter";

export interface CallState {
  /** The caller, once its key was validated (the /v1 routes). */
  identity?: KeyIdentity;
  /** performance.now() when the request arrived (its duration counts from here). */
  receivedAt: number;
  /** performance.now() once its body was read: the gateway's own overhead counts from here, not the client's upload. */
  readAt: number;
  /** The model call, once planned (for the completion record). */
  call?: Call;
  /** The client's own x-request-id, when it sent a usable one (echoed and logged; never the ledger's key). */
  clientRequestId?: string;
  /** The error table's code of the answer, when it was an error (for the completion record). */
  errorCode?: string;
  /** The request's server span, when tracing is on (app/plugins/request-span.ts). */
  span?: TraceSpan;
  /** The per-minute limit's answer (at once, or a promise), asked for as the request arrives and awaited once its body is read. */
  rateDecision?: RateAnswer;
}

export interface HookRequest extends CallState {
  readonly id: string;
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  /** The client's address (with TRUSTED_PROXIES, as the trusted proxies forwarded it). */
  readonly ip: string;
  readonly raw: IncomingMessage;
  readonly log: FastifyBaseLogger;
  /** The route's path as declared and its config (the dialect of a model call). */
  readonly routeOptions: { readonly url?: string; readonly config?: { readonly dialect?: ClientDialect } };
  body?: unknown;
}

export interface HookReply {
  readonly raw: ServerResponse;
  header(name: string, value: string): unknown;
  headers(values: Record<string, string>): unknown;
}

/** Called once: with an error, the request is answered with it (the error handler); without, it goes on. */
export type HookDone = (error?: Error) => void;

export type Hook = (request: HookRequest, reply: HookReply, done: HookDone) => void;

declare module "fastify" {
  interface FastifyRequest extends CallState {}

  interface FastifyContextConfig {
    /** The client dialect of a route that calls a model: it parses the body and renders answers and errors. */
    dialect?: ClientDialect;
  }
}
