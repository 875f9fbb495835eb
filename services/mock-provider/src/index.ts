export { buildMockProvider } from "./app";
export type { MockProviderApp } from "./app";
export type { MockControl } from "./control";
export type { CacheCounters, PromptCacheStats } from "./prompt-cache";
export { FAULTS } from "./types";
export type { Fault, Match, MatchScript, MockProviderOptions, Persona, RecordedRequest, Script, UsageScript } from "./types";
