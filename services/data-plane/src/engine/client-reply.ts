// The answer to a client as the engine writes it: fastify's reply has these members, and so does the
// front door's own (app/front-door.ts), so the engine serves a call the same way through either.
import type { ServerResponse } from "node:http";

export interface ClientReply {
  readonly raw: ServerResponse;
  readonly log: { warn(details: object, message: string): void };
  code(status: number): ClientReply;
  header(name: string, value: string): ClientReply;
  headers(values: Record<string, string>): ClientReply;
  /** A copy of the headers set so far. */
  getHeaders(): Record<string, unknown>;
  type(contentType: string): ClientReply;
  /** A Buffer as it is, a string as text, anything else as JSON; nothing: an empty body. */
  send(payload?: unknown): ClientReply;
  /** From now on the caller writes `raw` itself (a stream). */
  hijack(): ClientReply;
}
