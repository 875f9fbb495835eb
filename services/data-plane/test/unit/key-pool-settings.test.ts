// Pools of provider keys as configured (docs/providers.md, "Pools of keys"): the three forms of a pool,
// the options and their defaults, and strict refusals that name the variable and the entry, never a key.
import { describe, expect, it } from "vitest";
import { KeyPoolConfigError, keyFingerprint, MAX_POOL_KEYS, parseKeyPools } from "../../src/providers/key-pool/key-pool-settings";

const SECRET = "sk-very-secret-0123456789";
const files: Record<string, string> = {};
const readFile = (file: string) => {
  const text = files[file];
  if (text === undefined) throw Object.assign(new Error(`ENOENT: ${file}`), { code: "ENOENT" });
  return text;
};
const pools = (env: Record<string, string>) => parseKeyPools(env, readFile);

/** The refusal's message, checked never to hold the secret. */
function refusal(env: Record<string, string>): string {
  try {
    pools(env);
  } catch (error) {
    expect(error).toBeInstanceOf(KeyPoolConfigError);
    const message = (error as Error).message;
    expect(message).not.toContain(SECRET);
    expect(message).not.toContain("very-secret");
    return message;
  }
  throw new Error("not refused");
}

describe("parseKeyPools", () => {
  it("names a key by the first 8 hex characters of its sha256", () => {
    // sha256("sk-1") = 0f2c10bf...
    expect(keyFingerprint("sk-1")).toBe("0f2c10bf");
  });

  it("makes <NAME>_API_KEY a pool of one with the defaults: weight 1, no limits, its own fingerprint as group", () => {
    expect(pools({ OPENAI_API_KEY: "sk-1" }).get("OPENAI_API_KEY")).toEqual({
      variable: "OPENAI_API_KEY",
      source: "OPENAI_API_KEY",
      keys: [{ key: "sk-1", fingerprint: "0f2c10bf", weight: 1, rpm: undefined, tpm: undefined, group: "0f2c10bf" }],
    });
  });

  it("reads <NAME>_API_KEYS as a comma-separated list, each entry with its options, under the singular name", () => {
    const pool = pools({ OPENAI_API_KEYS: " sk-a;weight=2;rpm=500;tpm=200000;group=acct-a , sk-b; group=acct-a,sk-c " }).get(
      "OPENAI_API_KEY",
    )!;
    expect(pool.source).toBe("OPENAI_API_KEYS");
    expect(pool.keys.map(({ key, weight, rpm, tpm, group }) => ({ key, weight, rpm, tpm, group }))).toEqual([
      { key: "sk-a", weight: 2, rpm: 500, tpm: 200_000, group: "acct-a" },
      { key: "sk-b", weight: 1, rpm: undefined, tpm: undefined, group: "acct-a" },
      { key: "sk-c", weight: 1, rpm: undefined, tpm: undefined, group: keyFingerprint("sk-c") },
    ]);
  });

  it("reads <NAME>_API_KEYS_FILE as a JSON array of {key, weight, rpm, tpm, group}", () => {
    files["/keys/openai.json"] = JSON.stringify([
      { key: "sk-a", weight: 3, group: "acct-a" },
      { key: "sk-b", tpm: 1000 },
    ]);
    const pool = pools({ GROQ_EU_API_KEYS_FILE: "/keys/openai.json" }).get("GROQ_EU_API_KEY")!;
    expect(pool.source).toBe("GROQ_EU_API_KEYS_FILE");
    expect(pool.keys.map(({ key, weight, tpm, group }) => [key, weight, tpm, group])).toEqual([
      ["sk-a", 3, undefined, "acct-a"],
      ["sk-b", 1, 1000, keyFingerprint("sk-b")],
    ]);
  });

  it("ignores empty variables and names that are no provider key's", () => {
    expect([...pools({ OPENAI_API_KEYS: "", API_KEY: "x", lower_API_KEYS: "y", OPENAI_API_KEYS_EXTRA: "z" }).keys()]).toEqual([]);
  });

  it("refuses two of the three forms for one variable", () => {
    expect(refusal({ OPENAI_API_KEY: SECRET, OPENAI_API_KEYS_FILE: "/keys/openai.json" })).toBe(
      "OPENAI_API_KEY and OPENAI_API_KEYS_FILE are set: they configure one pool of keys, set only one of them",
    );
  });

  it.each<[string, string, string]>([
    ["an empty entry", `${SECRET},,sk-b`, "OPENAI_API_KEYS entry 2: the key is empty"],
    ["a trailing comma", `${SECRET},`, "OPENAI_API_KEYS entry 2: the key is empty"],
    ["an unknown option", `${SECRET};weigth=2`, 'OPENAI_API_KEYS entry 1: unknown option "weigth" (weight, rpm, tpm, group are known)'],
    [
      "a key where an option goes",
      `sk-a;${SECRET}`,
      "OPENAI_API_KEYS entry 1: an option that is not name=value (weight, rpm, tpm, group are known)",
    ],
    ["an option twice", `${SECRET};rpm=1;rpm=2`, "OPENAI_API_KEYS entry 1: rpm is given twice"],
    ["a weight of 0", `sk-a,${SECRET};weight=0`, "OPENAI_API_KEYS entry 2: weight must be an integer from 1 to 1000"],
    ["a weight above 1000", `${SECRET};weight=1001`, "OPENAI_API_KEYS entry 1: weight must be an integer from 1 to 1000"],
    ["a fractional rpm", `${SECRET};rpm=1.5`, "OPENAI_API_KEYS entry 1: rpm must be an integer from 1 up"],
    ["a negative tpm", `${SECRET};tpm=-1`, "OPENAI_API_KEYS entry 1: tpm must be an integer from 1 up"],
    ["a group with a space", `${SECRET};group=acct a`, "OPENAI_API_KEYS entry 1: group must be 1 to 64 letters, digits or . _ : -"],
    ["a key with a space", "sk-a,sk b", "OPENAI_API_KEYS entry 2: the key holds a space or a character a header cannot carry"],
    ["the same key twice", `${SECRET},sk-b,${SECRET}`, "OPENAI_API_KEYS entry 3: the same key as an earlier entry"],
  ])("refuses %s, naming the variable and the entry", (_, value, message) => {
    expect(refusal({ OPENAI_API_KEYS: value })).toBe(message);
  });

  it(`refuses a pool of more than ${MAX_POOL_KEYS} keys`, () => {
    const keys = Array.from({ length: MAX_POOL_KEYS + 1 }, (_, index) => `sk-${index}`);
    expect(pools({ OPENAI_API_KEYS: keys.slice(0, MAX_POOL_KEYS).join(",") }).get("OPENAI_API_KEY")!.keys).toHaveLength(MAX_POOL_KEYS);
    expect(refusal({ OPENAI_API_KEYS: keys.join(",") })).toBe(`OPENAI_API_KEYS holds 65 keys: a pool holds at most ${MAX_POOL_KEYS}`);
  });

  it.each<[string, string, string]>([
    ["a missing file", "", "cannot be read (ENOENT)"],
    ["text that is not JSON", `[{"key": "${SECRET}"`, "is not valid JSON"],
    ["an object", JSON.stringify({ key: SECRET }), 'must hold a JSON array of {"key", ...} objects'],
  ])("refuses a key file with %s, without quoting it", (_, text, message) => {
    const file = `/keys/${Math.random()}.json`;
    if (text) files[file] = text;
    expect(refusal({ OPENAI_API_KEYS_FILE: file })).toBe(`OPENAI_API_KEYS_FILE: ${file} ${message}`);
  });

  it.each<[string, unknown, string]>([
    ["an entry that is not an object", [SECRET], "OPENAI_API_KEYS_FILE entry 1: not an object"],
    ["a key that is not a string", [{ key: 42 }], 'OPENAI_API_KEYS_FILE entry 1: "key" must be a string'],
    ["a weight that is a string", [{ key: SECRET, weight: "2" }], 'OPENAI_API_KEYS_FILE entry 1: "weight" must be a number'],
    [
      "a fractional weight",
      [{ key: "sk-a" }, { key: SECRET, weight: 1.5 }],
      "OPENAI_API_KEYS_FILE entry 2: weight must be an integer from 1 to 1000",
    ],
    [
      "an unknown field",
      [{ key: SECRET, limit: 5 }],
      'OPENAI_API_KEYS_FILE entry 1: unknown field "limit" (key, weight, rpm, tpm, group are known)',
    ],
    [
      "a key as a field name",
      [{ key: "sk-a", [SECRET]: 1 }],
      "OPENAI_API_KEYS_FILE entry 1: an unknown field (key, weight, rpm, tpm, group are known)",
    ],
  ])("refuses a key file entry with %s", (_, entries, message) => {
    files["/keys/entries.json"] = JSON.stringify(entries);
    expect(refusal({ OPENAI_API_KEYS_FILE: "/keys/entries.json" })).toBe(message);
  });
});
