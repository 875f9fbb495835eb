// One 'close' listener per response for every part that must hear it (the
// request's record, the in-flight count, the client link, the request's span):
// a once() each allocated a wrapper per part and grew the emitter's listener
// array on every request (issue 36, item 3). They are called in the order they
// were registered, as once() listeners were.
import type { ServerResponse } from "node:http";

const CLOSE_CALLBACKS = Symbol("close callbacks");
type WithCallbacks = ServerResponse & { [CLOSE_CALLBACKS]?: (() => void)[] };

/** Calls `callback` when the response closes (not if it closed already: the caller checks `destroyed`). */
export function onResponseClose(response: ServerResponse, callback: () => void): void {
  const target = response as WithCallbacks;
  const registered = target[CLOSE_CALLBACKS];
  if (registered) {
    registered.push(callback);
    return;
  }
  const callbacks = [callback];
  target[CLOSE_CALLBACKS] = callbacks;
  response.once("close", () => {
    for (const each of callbacks) each();
  });
}
