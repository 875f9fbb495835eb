// The client side of one request. `gone` fires when the client goes away
// before its response is complete. `upstream` is the upstream request's abort
// signal: it fires a short drain after `gone`, so the provider's usage can
// still arrive and be billed (issue: bill what was produced, never $0 after
// content was sent), and the upstream is still stopped within a second.
import type { FastifyReply } from "fastify";

export interface ClientLink {
  gone: AbortSignal;
  upstream: AbortSignal;
}

/** One per request; a class, so a request allocates no closures beyond the 'close' listener. */
class RequestClientLink implements ClientLink {
  private readonly goneController = new AbortController();
  private readonly upstreamController = new AbortController();
  readonly gone = this.goneController.signal;
  readonly upstream = this.upstreamController.signal;

  constructor(
    private readonly reply: FastifyReply,
    private readonly drainMs: number,
  ) {}

  leave(): void {
    if (this.reply.raw.writableFinished || this.gone.aborted) return;
    this.goneController.abort();
    setTimeout(() => this.upstreamController.abort(), this.drainMs).unref();
  }
}

export function clientLink(reply: FastifyReply, drainMs: number): ClientLink {
  const link = new RequestClientLink(reply, drainMs);
  // The client may have left before the handler ran (during the key check or the body read): its
  // 'close' has fired already and would never be heard.
  // (Not request.raw.destroyed: a request stream is destroyed once its body has been read.)
  if (reply.raw.destroyed || reply.raw.socket?.destroyed === true) link.leave();
  else reply.raw.once("close", () => link.leave());
  return link;
}
