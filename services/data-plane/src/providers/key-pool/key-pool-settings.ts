// Pools of provider keys as configured (docs/providers.md, "Pools of keys"). A catalogue path names
// `<NAME>_API_KEY`; its pool comes from exactly one of `<NAME>_API_KEY` (a pool of one, as before
// pools), `<NAME>_API_KEYS` (a comma-separated list) or `<NAME>_API_KEYS_FILE` (a JSON file). A key is
// never echoed in an error: entries are named by their variable and position, keys by fingerprint.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";

/** Keys one pool holds at most: a pick looks at each one, and /health lists them all. */
export const MAX_POOL_KEYS = 64;
export const MAX_WEIGHT = 1000;
/** A group is an operator's name for a provider account, shown in /health and kept in Redis pins. */
const GROUP = /^[A-Za-z0-9._:-]{1,64}$/;
/** What a key may hold: it goes into an HTTP header as it is. */
const HEADER_SAFE = /^[\x21-\x7e]+$/;

export interface PoolKeySettings {
  /** The secret itself: only ever sent upstream. */
  key: string;
  /** The first 8 hex characters of its sha256: how logs, metrics and /health name it. */
  fingerprint: string;
  /** Its share of the pool's calls against the other usable keys (1 to 1000). */
  weight: number;
  /** Requests and tokens per minute for the whole gateway (each data plane takes its share); undefined: no limit. */
  rpm: number | undefined;
  tpm: number | undefined;
  /** The provider account it belongs to (keys of one account share its prompt cache); default its fingerprint. */
  group: string;
}

export interface KeyPoolSettings {
  /** The variable catalogue paths name (`OPENAI_API_KEY`), whichever of the three set the pool. */
  variable: string;
  /** The variable the keys came from: the same, `<NAME>_API_KEYS` or `<NAME>_API_KEYS_FILE`. */
  source: string;
  keys: PoolKeySettings[];
}

export class KeyPoolConfigError extends Error {}

export const keyFingerprint = (key: string): string => createHash("sha256").update(key).digest("hex").slice(0, 8);

const OPTIONS = ["weight", "rpm", "tpm", "group"] as const;
type Option = (typeof OPTIONS)[number];

/** Every pool the environment configures, by the variable catalogue paths name. */
export function parseKeyPools(
  env: NodeJS.ProcessEnv,
  readFile: (file: string) => string = (file) => readFileSync(file, "utf8"),
): Map<string, KeyPoolSettings> {
  const sources = new Map<string, string[]>();
  for (const [name, value] of Object.entries(env)) {
    const match = /^([A-Z0-9_]+_API_KEY)(S|S_FILE)?$/.exec(name);
    if (!match || !value) continue;
    sources.set(match[1]!, [...(sources.get(match[1]!) ?? []), name]);
  }
  const pools = new Map<string, KeyPoolSettings>();
  for (const [variable, names] of sources) {
    // Which one wins would be a guess: a key thought removed could still be sent.
    if (names.length > 1)
      throw new KeyPoolConfigError(`${names.sort().join(" and ")} are set: they configure one pool of keys, set only one of them`);
    const source = names[0]!;
    const keys =
      source === variable
        ? [poolKey(env[variable]!, {})]
        : source.endsWith("_FILE")
          ? fileEntries(source, env[source]!, readFile)
          : listEntries(source, env[source]!);
    if (keys.length > MAX_POOL_KEYS)
      throw new KeyPoolConfigError(`${source} holds ${keys.length} keys: a pool holds at most ${MAX_POOL_KEYS}`);
    const seen = new Set<string>();
    keys.forEach((entry, index) => {
      if (seen.has(entry.key)) throw new KeyPoolConfigError(`${source} entry ${index + 1}: the same key as an earlier entry`);
      seen.add(entry.key);
    });
    pools.set(variable, { variable, source, keys });
  }
  return pools;
}

/** `key` or `key;weight=2;rpm=500;tpm=200000;group=acct-a`, entries separated by commas. */
function listEntries(source: string, value: string): PoolKeySettings[] {
  return value.split(",").map((raw, index) => {
    const where = `${source} entry ${index + 1}`;
    const [key = "", ...options] = raw.trim().split(";");
    const given: Partial<Record<Option, string>> = {};
    for (const option of options) {
      const [name = "", ...rest] = option.trim().split("=");
      // A name is echoed only when it is a plain word: a misplaced separator could put part of a key here.
      if (!(OPTIONS as readonly string[]).includes(name) || rest.length !== 1)
        throw new KeyPoolConfigError(
          `${where}: ${/^[a-z_]{1,16}$/.test(name) ? `unknown option "${name}"` : "an option that is not name=value"} (${OPTIONS.join(", ")} are known)`,
        );
      if (given[name as Option] !== undefined) throw new KeyPoolConfigError(`${where}: ${name} is given twice`);
      given[name as Option] = rest[0]!;
    }
    return checked(where, key, given);
  });
}

/** A JSON array of `{"key", "weight"?, "rpm"?, "tpm"?, "group"?}`. */
function fileEntries(source: string, file: string, readFile: (file: string) => string): PoolKeySettings[] {
  const resolved = path.resolve(file);
  let text: string;
  try {
    text = readFile(resolved);
  } catch (error) {
    throw new KeyPoolConfigError(`${source}: ${resolved} cannot be read (${(error as NodeJS.ErrnoException).code ?? "error"})`);
  }
  let entries: unknown;
  try {
    entries = JSON.parse(text);
  } catch {
    // JSON.parse's message quotes the text around the fault: it could be a key.
    throw new KeyPoolConfigError(`${source}: ${resolved} is not valid JSON`);
  }
  if (!Array.isArray(entries)) throw new KeyPoolConfigError(`${source}: ${resolved} must hold a JSON array of {"key", ...} objects`);
  return entries.map((entry: unknown, index) => {
    const where = `${source} entry ${index + 1}`;
    if (typeof entry !== "object" || entry === null || Array.isArray(entry)) throw new KeyPoolConfigError(`${where}: not an object`);
    const fields = entry as Record<string, unknown>;
    const unknown = Object.keys(fields).find((name) => name !== "key" && !(OPTIONS as readonly string[]).includes(name));
    // Echoed only when it is a plain word: a misplaced key could be a field's name.
    if (unknown !== undefined)
      throw new KeyPoolConfigError(
        `${where}: ${/^[a-z_]{1,16}$/.test(unknown) ? `unknown field "${unknown}"` : "an unknown field"} (key, ${OPTIONS.join(", ")} are known)`,
      );
    if (typeof fields.key !== "string") throw new KeyPoolConfigError(`${where}: "key" must be a string`);
    const given: Partial<Record<Option, string>> = {};
    for (const name of OPTIONS) {
      const value = fields[name];
      if (value === undefined) continue;
      const wanted = name === "group" ? "string" : "number";
      if (typeof value !== wanted) throw new KeyPoolConfigError(`${where}: "${name}" must be a ${wanted}`);
      given[name] = String(value);
    }
    return checked(where, fields.key, given);
  });
}

function checked(where: string, key: string, given: Partial<Record<Option, string>>): PoolKeySettings {
  if (!key) throw new KeyPoolConfigError(`${where}: the key is empty`);
  if (!HEADER_SAFE.test(key)) throw new KeyPoolConfigError(`${where}: the key holds a space or a character a header cannot carry`);
  const group = given.group;
  if (group !== undefined && !GROUP.test(group)) throw new KeyPoolConfigError(`${where}: group must be 1 to 64 letters, digits or . _ : -`);
  return poolKey(key, {
    weight: integer(where, "weight", given.weight, MAX_WEIGHT),
    rpm: integer(where, "rpm", given.rpm),
    tpm: integer(where, "tpm", given.tpm),
    group,
  });
}

function integer(where: string, name: string, raw: string | undefined, max = Number.MAX_SAFE_INTEGER): number | undefined {
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(value) || value < 1 || value > max)
    throw new KeyPoolConfigError(`${where}: ${name} must be an integer from 1${max === Number.MAX_SAFE_INTEGER ? " up" : ` to ${max}`}`);
  return value;
}

function poolKey(key: string, options: { weight?: number; rpm?: number; tpm?: number; group?: string }): PoolKeySettings {
  const fingerprint = keyFingerprint(key);
  return { key, fingerprint, weight: options.weight ?? 1, rpm: options.rpm, tpm: options.tpm, group: options.group ?? fingerprint };
}
