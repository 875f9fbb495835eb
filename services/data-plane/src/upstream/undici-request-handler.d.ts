// The handler undici's own `request()` uses (undici 7's lib/api/api-request.js), which upstream-http.ts
// extends to learn when a call is handed to a connection. Not part of undici's typed API: only what is used.
declare module "undici/lib/api/api-request.js" {
  import type { AsyncResource } from "node:async_hooks";
  import type { Dispatcher } from "undici";

  class RequestHandler extends AsyncResource {
    constructor(opts: Dispatcher.RequestOptions, callback: (error: Error | null, data: Dispatcher.ResponseData) => void);
    /** Set when the call's signal fired: handed to a connection, the call is then aborted before a byte is written. */
    reason: unknown;
    onConnect(abort: (error?: Error) => void, context?: unknown): void;
  }
  const request: { RequestHandler: typeof RequestHandler };
  export default request;
}
