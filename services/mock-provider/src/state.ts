// Everything one mock instance remembers, shared by the /v1 and /_mock routes.
import type { FastifyRequest } from "fastify";
import type { Fixtures } from "./fixtures";
import type { PromptCache } from "./prompt-cache";
import type { RequestLog } from "./recorder";
import type { Exchange } from "./respond";
import type { ScriptStore } from "./scripts";
import type { BedrockOptions } from "./types";

export interface MockState {
  fixtures: Fixtures;
  log: RequestLog;
  scripts: ScriptStore;
  errorFixtureNames: ReadonlySet<string>;
  apiKey: string | undefined;
  /** MockProviderOptions.bedrock, as given. */
  bedrock: BedrockOptions | undefined;
  /** Next n for `chatcmpl-mock-<n>` (1, 2, ... per instance, so tests can predict ids). */
  nextCompletionId(): number;
  /** Next n for the `x-request-id: req_mock_<n>` response header. */
  nextRequestId(): number;
  /** The prompt-cache model (prompt-cache.ts), consulted only while enabled. */
  promptCache: PromptCache;
  /** Raw request bodies, kept for substring matching of scripts. */
  rawBodies: WeakMap<FastifyRequest, string>;
  exchanges: WeakMap<FastifyRequest, Exchange>;
}
