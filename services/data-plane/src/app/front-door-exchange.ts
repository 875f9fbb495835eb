// The front door's request and reply (front-door.ts): the members of fastify's that the model calls'
// hooks, the error handler and the engine use (request-context.ts, engine/client-reply.ts), over Node's own
// request and response, with nothing else per request.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { FastifyBaseLogger } from "fastify";
import type { ClientReply } from "../engine/client-reply";
import type { HookReply, HookRequest } from "../request-context";

/** What every request of one door shares. */
export interface DoorContext {
  readonly logger: FastifyBaseLogger;
  /** The client's address (TRUSTED_PROXIES: as fastify's request.ip works it out). */
  ip(raw: IncomingMessage): string;
}

export class DoorRequest implements HookRequest {
  identity: HookRequest["identity"];
  receivedAt = 0;
  readAt = 0;
  call: HookRequest["call"];
  clientRequestId: string | undefined;
  errorCode: string | undefined;
  span: HookRequest["span"];
  rateDecision: HookRequest["rateDecision"];
  body: unknown;
  private logger: FastifyBaseLogger | undefined;

  constructor(
    readonly id: string,
    readonly raw: IncomingMessage,
    readonly routeOptions: HookRequest["routeOptions"],
    private readonly context: DoorContext,
  ) {}

  get method(): string {
    return this.raw.method!;
  }

  get url(): string {
    return this.raw.url!;
  }

  get headers(): IncomingMessage["headers"] {
    return this.raw.headers;
  }

  get ip(): string {
    return this.context.ip(this.raw);
  }

  /** As fastify's request.log: the app's logger with the request's id (reqId). */
  get log(): FastifyBaseLogger {
    this.logger ??= this.context.logger.child({ reqId: this.id });
    return this.logger;
  }
}

export class DoorReply implements ClientReply, HookReply {
  /** Sent, or hijacked: the response is no longer this reply's to write. */
  sent = false;

  constructor(
    readonly raw: ServerResponse,
    private readonly request: DoorRequest,
  ) {}

  get log(): FastifyBaseLogger {
    return this.request.log;
  }

  code(status: number): this {
    this.raw.statusCode = status;
    return this;
  }

  header(name: string, value: string): this {
    if (!this.raw.headersSent) this.raw.setHeader(name, value);
    return this;
  }

  headers(values: Record<string, string>): this {
    for (const name in values) this.header(name, values[name]!);
    return this;
  }

  /** Node's getHeaders() is a copy already (the stream's writer completes it in place). */
  getHeaders(): Record<string, unknown> {
    return this.raw.getHeaders();
  }

  type(contentType: string): this {
    return this.header("content-type", contentType);
  }

  hijack(): this {
    this.sent = true;
    return this;
  }

  /** As fastify's reply.send without a schema: a Buffer as it is, a string as text, anything else as JSON. */
  send(payload?: unknown): this {
    if (this.sent) return this;
    this.sent = true;
    const { raw } = this;
    if (raw.headersSent) {
      raw.end();
      return this;
    }
    if (payload === undefined || payload === null) {
      if (raw.statusCode >= 200 && raw.statusCode !== 204 && raw.statusCode !== 304) raw.setHeader("content-length", "0");
      raw.end();
      return this;
    }
    let body: string | Buffer;
    if (Buffer.isBuffer(payload)) {
      body = payload;
      if (!raw.hasHeader("content-type")) raw.setHeader("content-type", "application/octet-stream");
    } else if (typeof payload === "string") {
      body = payload;
      if (!raw.hasHeader("content-type")) raw.setHeader("content-type", "text/plain; charset=utf-8");
    } else {
      body = JSON.stringify(payload);
      if (!raw.hasHeader("content-type")) raw.setHeader("content-type", "application/json; charset=utf-8");
    }
    raw.setHeader("content-length", typeof body === "string" ? Buffer.byteLength(body) : body.length);
    raw.end(body);
    return this;
  }
}
