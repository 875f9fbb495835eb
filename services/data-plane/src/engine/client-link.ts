// The client side of one request. `gone` turns true when the client goes away
// before its response is complete. `upstream` is the upstream request's abort
// signal: it fires a short drain after that, so the provider's usage can still
// arrive and be billed (what was produced is billed, never $0 once content was
// sent; docs/money.md), and the upstream is still stopped within a second.
//
// No AbortController per request: they cost measurably at high concurrency
// (docs/benchmark.md). undici takes an EventEmitter with `aborted` as a
// request's signal; an AbortSignal for the client's departure is made only for
// the rare wait that needs one (a retry's backoff).
import { EventEmitter } from "node:events";
import type { ClientReply } from "./client-reply";
import { onResponseClose } from "../response-close";

/**
 * A request's upstream abort signal, in the EventEmitter form undici accepts: 'abort' once, then
 * `aborted`. Not an AbortSignal: APIs that need one (timers/promises, events.once, body.dump) get
 * `goneSignal()` instead; the types keep the two apart.
 */
export class UpstreamAbort extends EventEmitter {
  aborted = false;

  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    this.emit("abort");
  }
}

export interface ClientLink {
  /** The client went away before its response was complete. */
  readonly gone: boolean;
  /** An AbortSignal that fires when the client goes (for a wait that should end then). */
  goneSignal(): AbortSignal;
  readonly upstream: UpstreamAbort;
}

/** One per request; a class, so a request allocates no closures beyond the 'close' listener. */
class RequestClientLink implements ClientLink {
  gone = false;
  readonly upstream = new UpstreamAbort();
  private goneController: AbortController | undefined;

  constructor(
    private readonly reply: ClientReply,
    private readonly drainMs: number,
  ) {}

  goneSignal(): AbortSignal {
    if (!this.goneController) {
      this.goneController = new AbortController();
      if (this.gone) this.goneController.abort();
    }
    return this.goneController.signal;
  }

  leave(): void {
    if (this.reply.raw.writableFinished || this.gone) return;
    this.gone = true;
    this.goneController?.abort();
    setTimeout(() => this.upstream.abort(), this.drainMs).unref();
  }
}

export function clientLink(reply: ClientReply, drainMs: number): ClientLink {
  const link = new RequestClientLink(reply, drainMs);
  // The client may have left before the handler ran (during the key check or the body read): its
  // 'close' has fired already and would never be heard.
  // (Not request.raw.destroyed: a request stream is destroyed once its body has been read.)
  if (reply.raw.destroyed || reply.raw.socket?.destroyed === true) link.leave();
  else onResponseClose(reply.raw, () => link.leave());
  return link;
}
