// Script validation and the queue of match scripts. Scripts come from untrusted
// JSON (a header or a control call), so they are checked strictly: a typo in a
// fault name should fail the test that wrote it, not silently do nothing.
import { statusFromFixtureName } from "./errors";
import { FAULTS } from "./types";
import type { Fault, Match, MatchScript, Script, UsageScript } from "./types";

export class ScriptError extends Error {}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function nonNegativeInt(value: unknown, field: string): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0) {
    throw new ScriptError(`${field} must be a non-negative integer`);
  }
  return value;
}

const USAGE_COUNTS = [
  "prompt_tokens",
  "completion_tokens",
  "cached_tokens",
  "cache_creation_tokens",
  "cache_creation_1h_tokens",
  "reasoning_tokens",
  "web_search_requests",
] as const;
const USAGE_KEYS: readonly string[] = [...USAGE_COUNTS, "service_tier"];

function parseUsage(value: unknown): UsageScript {
  if (value === "random") return "random";
  if (isRecord(value)) {
    for (const key of Object.keys(value)) {
      if (!USAGE_KEYS.includes(key)) throw new ScriptError(`unknown usage field "${key}"`);
    }
    const usage: UsageScript = { prompt_tokens: nonNegativeInt(value.prompt_tokens, "usage.prompt_tokens") };
    for (const key of USAGE_COUNTS.slice(1)) {
      if (value[key] !== undefined) usage[key] = nonNegativeInt(value[key], `usage.${key}`);
    }
    if (value.service_tier !== undefined) {
      if (typeof value.service_tier !== "string" || value.service_tier === "")
        throw new ScriptError("usage.service_tier must be a non-empty string");
      usage.service_tier = value.service_tier;
    }
    return usage;
  }
  throw new ScriptError(`usage must be "random" or {${USAGE_KEYS.map((key, i) => (i === 0 ? key : `${key}?`)).join(", ")}}`);
}

const SCRIPT_KEYS = new Set([
  "status",
  "errorFixture",
  "errorBody",
  "headers",
  "latencyMs",
  "chunkDelayMs",
  "firstChunkDelayMs",
  "usage",
  "fault",
  "assembled",
]);

/** The status a script answers with: `status`, else the one an error fixture implies (openai.error.<status>.<code>). */
export function scriptStatus(script: Script | undefined): number | undefined {
  return script?.status ?? (script?.errorFixture ? statusFromFixtureName(script.errorFixture) : undefined);
}

// An error body on a success would be silently dropped; say so instead.
function parseErrorBody(value: unknown, script: Script): string {
  if (typeof value !== "string") throw new ScriptError("errorBody must be a string");
  const status = scriptStatus(script);
  if (status === undefined || status < 400) {
    throw new ScriptError("errorBody needs an error status in the same script: status >= 400 or an errorFixture");
  }
  return value;
}

/** Validate a script; `errorFixtures` are the names that `errorFixture` may use. */
export function parseScript(input: unknown, errorFixtures: ReadonlySet<string>, extraKeys: ReadonlySet<string> = new Set()): Script {
  if (!isRecord(input)) throw new ScriptError("script must be a JSON object");
  for (const key of Object.keys(input)) {
    if (!SCRIPT_KEYS.has(key) && !extraKeys.has(key)) throw new ScriptError(`unknown script field "${key}"`);
  }
  const script: Script = {};
  if (input.status !== undefined) {
    const status = nonNegativeInt(input.status, "status");
    if (status < 200 || status > 599) throw new ScriptError("status must be 200..599");
    script.status = status;
  }
  if (input.errorFixture !== undefined) {
    const name = String(input.errorFixture).replace(/\.json$/, "");
    if (!errorFixtures.has(name)) {
      throw new ScriptError(`unknown errorFixture "${name}" (known: ${[...errorFixtures].join(", ")})`);
    }
    script.errorFixture = name;
  }
  if (input.errorBody !== undefined) script.errorBody = parseErrorBody(input.errorBody, script);
  if (input.headers !== undefined) {
    if (!isRecord(input.headers)) throw new ScriptError("headers must be an object");
    // Header names are case-insensitive; lowercase so later layers override cleanly.
    script.headers = Object.fromEntries(Object.entries(input.headers).map(([name, value]) => [name.toLowerCase(), String(value)]));
  }
  if (input.latencyMs !== undefined) script.latencyMs = nonNegativeInt(input.latencyMs, "latencyMs");
  if (input.chunkDelayMs !== undefined) script.chunkDelayMs = nonNegativeInt(input.chunkDelayMs, "chunkDelayMs");
  if (input.firstChunkDelayMs !== undefined) {
    script.firstChunkDelayMs = nonNegativeInt(input.firstChunkDelayMs, "firstChunkDelayMs");
  }
  if (input.usage !== undefined) script.usage = parseUsage(input.usage);
  if (input.fault !== undefined) {
    if (!FAULTS.includes(input.fault as Fault)) {
      throw new ScriptError(`unknown fault "${String(input.fault)}" (known: ${FAULTS.join(", ")})`);
    }
    script.fault = input.fault as Fault;
  }
  if (input.assembled !== undefined) {
    if (typeof input.assembled !== "boolean") throw new ScriptError("assembled must be a boolean");
    script.assembled = input.assembled;
  }
  return script;
}

const isNonEmptyString = (value: unknown): value is string => typeof value === "string" && value !== "";

// An empty string (or an empty list) would match every request: almost surely a test bug.
function parseMatch(value: unknown): Match {
  if (isNonEmptyString(value)) return value;
  if (Array.isArray(value) && value.length > 0 && value.every(isNonEmptyString)) return [...value];
  throw new ScriptError("match must be a non-empty string or a non-empty array of non-empty strings");
}

export function parseMatchScript(input: unknown, errorFixtures: ReadonlySet<string>): MatchScript {
  if (!isRecord(input)) throw new ScriptError("script must be a JSON object");
  const match = parseMatch(input.match);
  const times = input.times === undefined ? 1 : nonNegativeInt(input.times, "times");
  if (input.path !== undefined && !isNonEmptyString(input.path)) throw new ScriptError("path must be a non-empty string");
  if (input.credential !== undefined && !isNonEmptyString(input.credential)) throw new ScriptError("credential must be a non-empty string");
  const script: MatchScript = { ...parseScript(input, errorFixtures, new Set(["match", "path", "credential", "times"])), match, times };
  if (input.path !== undefined) script.path = input.path;
  if (input.credential !== undefined) script.credential = input.credential;
  return script;
}

/** What a request to match a script carries besides its body: its URL, and the keys it presented. */
export interface RequestMarks {
  url: string;
  credentials: readonly string[];
}

/** True when the raw body contains the match string, or every one of a list, the URL the script's path, and the request its credential. */
function matches(rawBody: string, marks: RequestMarks, script: MatchScript): boolean {
  const { match, path, credential } = script;
  if (path !== undefined && !marks.url.includes(path)) return false;
  if (credential !== undefined && !marks.credentials.includes(credential)) return false;
  return typeof match === "string" ? rawBody.includes(match) : match.every((part) => rawBody.includes(part));
}

/** Later layers win; `headers` are merged rather than replaced. */
export function mergeScripts(...layers: (Script | undefined)[]): Script | undefined {
  let merged: Script | undefined;
  for (const layer of layers) {
    if (!layer) continue;
    const headers = merged?.headers || layer.headers ? { ...merged?.headers, ...layer.headers } : undefined;
    merged = { ...merged, ...layer };
    if (headers) merged.headers = headers;
  }
  return merged;
}

function withoutMatch(script: MatchScript): Script {
  const { match: _match, path: _path, credential: _credential, times: _times, ...rest } = script;
  return rest;
}

// Copies on the way in and out, so a caller mutating its object (or a listed
// one) cannot change what is queued, match arrays included.
function copyMatchScript(script: MatchScript): MatchScript {
  return { ...script, match: Array.isArray(script.match) ? [...script.match] : script.match };
}

export class ScriptStore {
  private queue: MatchScript[] = [];
  private runtimeDefault: Script | undefined;

  constructor(private readonly configuredDefault: Script | undefined) {}

  add(script: MatchScript): void {
    this.queue.push(copyMatchScript(script));
  }

  list(): MatchScript[] {
    return this.queue.map(copyMatchScript);
  }

  clearMatchScripts(): void {
    this.queue = [];
  }

  setDefault(script: Script | undefined): void {
    this.runtimeDefault = script;
  }

  get defaultScript(): Script | undefined {
    return this.runtimeDefault ?? this.configuredDefault;
  }

  /** Clears queued and runtime default scripts; the default given in options stays. */
  reset(): void {
    this.queue = [];
    this.runtimeDefault = undefined;
  }

  /** First queued script whose match occurs in the raw body (its path in the URL, its credential presented); consumes one use of it. */
  take(rawBody: string, marks: RequestMarks): Script | undefined {
    const position = this.queue.findIndex((s) => matches(rawBody, marks, s));
    const found = this.queue[position];
    if (!found) return undefined;
    if (found.times !== 0) {
      found.times = (found.times ?? 1) - 1;
      if (found.times <= 0) this.queue.splice(position, 1);
    }
    return withoutMatch(found);
  }

  /** Effective script: default < match script < header script. */
  resolve(rawBody: string, marks: RequestMarks, headerScript: Script | undefined): Script | undefined {
    return mergeScripts(this.defaultScript, this.take(rawBody, marks), headerScript);
  }
}
