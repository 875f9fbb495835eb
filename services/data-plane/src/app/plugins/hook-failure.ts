// A callback hook's answer to a rejected promise: the request fails with it. `done(undefined)` would let
// the request through, so a rejection without an Error (none is known today) still fails it.
import type { HookDone } from "../../request-context";

export const failWith =
  (done: HookDone) =>
  (error: unknown): void =>
    done(error instanceof Error ? error : new Error(`a hook's promise was rejected with ${String(error)}`));
