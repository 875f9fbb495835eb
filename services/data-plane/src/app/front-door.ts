// The model calls' front door (issue 36, item 2): a POST to one of their paths, spelled exactly, is
// taken from Node's server before fastify builds its request, reply and hook chain for it, and runs the
// same hooks, in the order fastify runs them, the same body reading and parsing, the same handler and
// the same error handler, each one function shared with the fastify routes (request-context.ts). Anything
// else (another method or path, a query string, an absolute-form target) goes to fastify as before,
// which serves the model calls too. RAW_FRONT_DOOR=false sends everything to fastify.
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { ClientReply } from "../engine/client-reply";
import { bodyTooLarge, bodyUnreadable, internalError } from "../errors";
import { type DoorContext, DoorReply, DoorRequest } from "./front-door-exchange";
import type { Hook, HookRequest } from "../request-context";
import { parseBody } from "./plugins/body-parser";

/** A model call's route: its path and config as fastify knows them, and its handler. */
export interface DoorRoute {
  readonly routeOptions: HookRequest["routeOptions"];
  handle(request: HookRequest, reply: ClientReply): Promise<unknown>;
}

export interface FrontDoorOptions extends DoorContext {
  /** By exact path. */
  routes: ReadonlyMap<string, DoorRoute>;
  /** The hooks fastify runs on these routes, in its order: on request, then (after the body) before the handler. */
  onRequest: readonly Hook[];
  preHandler: readonly Hook[];
  bodyLimitBytes: number;
  answerError(error: unknown, request: HookRequest, reply: ClientReply): Promise<unknown>;
}

export class FrontDoor {
  /** The request's steps: its hooks, the body's read between them. */
  private readonly steps: readonly Hook[];

  constructor(private readonly options: FrontDoorOptions) {
    this.steps = [...options.onRequest, readBody(options.bodyLimitBytes), ...options.preHandler];
  }

  /** Serves the request if it is one of the door's; false: fastify's. */
  take(raw: IncomingMessage, res: ServerResponse): boolean {
    if (raw.method !== "POST") return false;
    const route = this.options.routes.get(raw.url!);
    if (!route) return false;
    new DoorCall(this.options, this.steps, route, raw, res).next();
    return true;
  }
}

/** One request through the door: its steps, each called with `next` as its `done`, then the handler. */
class DoorCall {
  private readonly request: DoorRequest;
  private readonly reply: DoorReply;
  private step = 0;

  constructor(
    private readonly options: FrontDoorOptions,
    private readonly steps: readonly Hook[],
    private readonly route: DoorRoute,
    raw: IncomingMessage,
    res: ServerResponse,
  ) {
    // One id per request, unique across replicas: as fastify's genReqId (build-app.ts).
    this.request = new DoorRequest(randomUUID(), raw, route.routeOptions, options);
    this.reply = new DoorReply(res, this.request);
  }

  readonly next = (error?: Error) => {
    if (error) return this.fail(error);
    const hook = this.steps[this.step++];
    if (hook) {
      try {
        hook(this.request, this.reply, this.next);
      } catch (thrown) {
        this.fail(thrown);
      }
      return;
    }
    this.route.handle(this.request, this.reply).then(undefined, (thrown: unknown) => this.fail(thrown));
  };

  /** As fastify: the error handler answers, unless the answer was sent (or is a stream) already. */
  private fail(error: unknown): void {
    const { request, reply } = this;
    if (reply.sent || reply.raw.headersSent) {
      request.log.error({ err: error }, "Promise errored, but reply.sent = true was set");
      return;
    }
    this.options.answerError(error, request, reply).then(undefined, (thrown: unknown) => {
      request.log.error({ err: thrown }, "the error handler failed");
      if (!reply.sent) reply.code(500).send(internalError().toBody());
    });
  }
}

/**
 * The body, as fastify reads it for a content-type parser: refused at once when its declared length is
 * over the limit, cut when it grows past it, a 400 when it ends short of or beyond its declared length;
 * then parsed (plugins/body-parser.ts). No body at all (no type, length or transfer encoding): undefined.
 */
function readBody(limit: number): Hook {
  return (request, _reply, done) => {
    const { raw } = request;
    const declared = raw.headers["content-length"];
    if (
      raw.headers["content-type"] === undefined &&
      raw.headers["transfer-encoding"] === undefined &&
      (declared === undefined || declared === "0")
    )
      return done();
    const expected = Number(declared);
    if (expected > limit) return done(bodyTooLarge(limit));
    new BodyRead(request, limit, expected, done).start();
  };
}

class BodyRead {
  private readonly chunks: Buffer[] = [];
  private received = 0;

  constructor(
    private readonly request: HookRequest,
    private readonly limit: number,
    /** NaN: not declared. */
    private readonly expected: number,
    private readonly done: (error?: Error) => void,
  ) {}

  start(): void {
    const { raw } = this.request;
    raw.on("data", this.onData);
    raw.on("end", this.onEnd);
    raw.on("error", this.onError);
    raw.resume();
  }

  private stop(): void {
    const { raw } = this.request;
    raw.off("data", this.onData);
    raw.off("end", this.onEnd);
    raw.off("error", this.onError);
  }

  private readonly onData = (chunk: Buffer) => {
    this.received += chunk.length;
    if (this.received > this.limit) {
      this.stop();
      return this.done(bodyTooLarge(this.limit));
    }
    this.chunks.push(chunk);
  };

  private readonly onError = () => {
    this.stop();
    this.done(bodyUnreadable());
  };

  private readonly onEnd = () => {
    this.stop();
    if (!Number.isNaN(this.expected) && this.received !== this.expected) return this.done(bodyUnreadable());
    const { chunks } = this;
    const text = chunks.length === 1 ? chunks[0]!.toString("utf8") : Buffer.concat(chunks, this.received).toString("utf8");
    try {
      this.request.body = parseBody(text);
    } catch (error) {
      return this.done(error as Error);
    }
    this.done();
  };
}
