// What the data plane's plugins attach to a request, for the ones after them.
import type { TraceSpan } from "@gateway/proto/tracing";
import type { KeyIdentity } from "./auth/key-cache";
import type { ClientDialect } from "./dialects/client-dialect";
import type { Call } from "./engine/call";
import type { RateDecision } from "./limits/rate-limiter";

declare module "fastify" {
  interface FastifyRequest {
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
    /** The per-minute limit's answer, asked for as the request arrives and awaited once its body is read. */
    rateDecision?: Promise<RateDecision>;
  }

  interface FastifyContextConfig {
    /** The client dialect of a route that calls a model: it parses the body and renders answers and errors. */
    dialect?: ClientDialect;
  }
}
