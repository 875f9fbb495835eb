// What a persona's gate is: the checks it makes before any script runs (personas.ts picks the gate by path).
// Its own file so each persona's gate module can name the type without importing personas.ts.
import type { FastifyRequest } from "fastify";
import type { Persona } from "./types";
import type { Wire } from "./wire";

export interface Rejection {
  status: number;
  body: unknown;
}

export interface Gate {
  persona: Persona;
  wire: Wire;
  /** False for a path the persona does not serve although a route caught it (no script is consumed then). */
  serves?(request: FastifyRequest): boolean;
  /** The answer refusing the call before any script (auth, required headers), or undefined to go on. */
  reject(request: FastifyRequest, requestId: string): Rejection | undefined;
}
