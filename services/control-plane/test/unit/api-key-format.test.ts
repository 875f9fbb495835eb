import { describe, expect, it } from "vitest";
import {
  hashApiKey,
  newApiKey,
  newProjectId,
  parseApiKey,
  PROJECT_ID_PATTERN,
  randomBase62,
  SECRET_LENGTH,
} from "../../src/keys/api-key-format";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const secret43 = "aB3dE5gH7jK9mN1pQ3sT5vW7yZ0bC2eF4hJ6kL8nP0r";

describe("newApiKey / parseApiKey", () => {
  it("has 43 secret characters", () => {
    expect(SECRET_LENGTH).toBe(43);
    expect(secret43).toHaveLength(43);
  });

  it.each(["abc", "proj42", "a1b2c3d4e5f6", "x".repeat(32)])("formats a key for project %s", (project) => {
    const key = newApiKey(project);
    expect(key).toMatch(new RegExp(`^sk_${project}_[0-9A-Za-z]{43}$`));
  });

  it.each(["abc", "proj42", "x".repeat(32)])("round-trips a key for project %s through parseApiKey", (project) => {
    const key = newApiKey(project);
    expect(parseApiKey(key)).toEqual({ projectId: project, secret: key.slice(`sk_${project}_`.length) });
  });

  it("generates different keys each time", () => {
    const keys = new Set(Array.from({ length: 200 }, () => newApiKey("proj")));
    expect(keys.size).toBe(200);
  });

  it.each<[string, string]>([
    ["valid 43-char secret", `sk_proj42_${secret43}`],
    ["32-char secret (minimum)", `sk_abc_${"a".repeat(32)}`],
    ["128-char secret (maximum)", `sk_abc_${"Z".repeat(128)}`],
  ])("accepts %s", (_name, key) => {
    expect(parseApiKey(key)).toBeDefined();
  });

  it.each<[string, string]>([
    ["wrong prefix", `pk_proj42_${secret43}`],
    ["upper-case prefix", `SK_proj42_${secret43}`],
    ["OpenAI-style prefix", `sk-proj42_${secret43}`],
    ["underscore in project", `sk_my_proj_${secret43}`],
    ["upper-case project", `sk_Proj42_${secret43}`],
    ["project too short", `sk_ab_${secret43}`],
    ["project too long", `sk_${"a".repeat(33)}_${secret43}`],
    ["short secret", `sk_proj42_${"a".repeat(31)}`],
    ["secret too long", `sk_proj42_${"a".repeat(129)}`],
    ["non-base62 secret", `sk_proj42_${secret43.slice(0, 42)}-`],
    ["leading space", ` sk_proj42_${secret43}`],
    ["trailing newline", `sk_proj42_${secret43}\n`],
    ["missing secret", "sk_proj42_"],
    ["empty", ""],
  ])("rejects %s", (_name, key) => {
    expect(parseApiKey(key)).toBeUndefined();
  });
});

describe("hashApiKey", () => {
  it("is the SHA-256 hex of the whole key", () => {
    expect(hashApiKey("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });

  it("is 64 lower-case hex characters and stable", () => {
    const key = newApiKey("proj42");
    expect(hashApiKey(key)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashApiKey(key)).toBe(hashApiKey(key));
  });

  it("differs for keys that differ in one character", () => {
    expect(hashApiKey(`sk_proj42_${secret43}`)).not.toBe(hashApiKey(`sk_proj42_${secret43.slice(0, 42)}1`));
  });
});

describe("randomBase62", () => {
  it.each([0, 1, 43, 1000])("returns exactly %d characters", (length) => {
    expect(randomBase62(length)).toHaveLength(length);
  });

  it("uses only base62 characters and all 62 of them over 20k characters", () => {
    const sample = randomBase62(20_000);
    expect(sample).toMatch(/^[0-9A-Za-z]+$/);
    expect([...new Set(sample)].sort().join("")).toBe([...BASE62].sort().join(""));
  });

  it("is roughly uniform over 62k characters (each within 50% of the mean)", () => {
    const counts = new Map<string, number>();
    for (const char of randomBase62(62_000)) counts.set(char, (counts.get(char) ?? 0) + 1);
    const outliers = [...counts].filter(([, count]) => count < 500 || count > 1500);
    expect(outliers).toEqual([]);
  });

  it("differs between calls", () => {
    expect(randomBase62(43)).not.toBe(randomBase62(43));
  });
});

describe("newProjectId", () => {
  it("matches the project id pattern", () => {
    for (let index = 0; index < 100; index++) expect(newProjectId()).toMatch(PROJECT_ID_PATTERN);
  });

  it("is 12 lower-case alphanumerics", () => {
    expect(newProjectId()).toMatch(/^[0-9a-z]{12}$/);
  });
});
