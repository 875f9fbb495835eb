// The /v1 scope's caller: every answer carries x-request-id, and a request
// must present a valid key (`Authorization: Bearer <key>`).
import type { KeyIdentity } from "../../auth/key-cache";
import { invalidApiKey } from "../../errors";
import { globalPlugin } from "./global-plugin";

const BEARER = /^Bearer\s+(\S+)\s*$/i;

export interface KeyValidation {
  /** The key's identity, or undefined when it is not valid; throws when it cannot be checked. */
  validate(key: string): Promise<KeyIdentity | undefined>;
}

export const auth = globalPlugin<{ keys: KeyValidation }>(async (app, { keys }) => {
  app.decorateRequest("identity", undefined);
  app.addHook("onRequest", async (request, reply) => {
    reply.header("x-request-id", request.id);
    const match = BEARER.exec(request.headers.authorization ?? "");
    if (!match) throw invalidApiKey();
    const identity = await keys.validate(match[1]!);
    if (!identity) throw invalidApiKey();
    request.identity = identity;
  });
});
