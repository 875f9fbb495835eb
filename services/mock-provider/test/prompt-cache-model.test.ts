// The prompt-cache model on its own, with a clock the test moves: OpenAI's and Gemini's
// automatic caching, Anthropic's breakpoints and lookback, lifetimes, accounts, the entry cap.
import { describe, expect, it } from "vitest";
import { type CacheRules, PromptCache } from "../src/prompt-cache";
import { canonicalJson, chatPrompt, conversePrompt, messagesPrompt } from "../src/prompt-tokens";
import type { PromptBlock, Ttl } from "../src/prompt-tokens";

const MINUTE = 60_000;

/** A block of `tokens` tokens, its text unique per name. */
const b = (name: string, tokens: number, breakpoint?: Ttl): PromptBlock =>
  breakpoint === undefined ? { text: name, tokens } : { text: name, tokens, breakpoint };

function setup(maxEntries?: number) {
  let now = 1_000_000;
  const cache = new PromptCache(true, () => now, maxEntries);
  const use = (blocks: PromptBlock[], rules: CacheRules = "openai", credential = "key-a", model = "m", family = "openai") =>
    cache.use({ family, credential, model, rules, blocks });
  return { cache, use, advance: (ms: number) => (now += ms) };
}

describe("automatic caching (OpenAI, Gemini)", () => {
  const system = b("system", 1500);

  it("reads the longest remembered block-boundary prefix, rounded down to 1024 + n x 128 for OpenAI", () => {
    const { use } = setup();
    expect(use([system, b("u1", 10)])).toEqual({ promptTokens: 1510, readTokens: 0, write5mTokens: 0, write1hTokens: 0 });
    // 1510 -> 1024 + 3 x 128
    expect(use([system, b("u1", 10), b("a1", 300), b("u2", 5)]).readTokens).toBe(1408);
    // The longest now: 1815 -> 1024 + 6 x 128
    expect(use([system, b("u1", 10), b("a1", 300), b("u2", 5), b("a2", 1)]).readTokens).toBe(1792);
  });

  it("Gemini's implicit cache reads the prefix unrounded", () => {
    const { use } = setup();
    use([system, b("u1", 10)], "gemini");
    expect(use([system, b("u1", 10), b("u2", 7)], "gemini").readTokens).toBe(1510);
  });

  it("never caches a prompt under 1024 tokens, and only prefixes of at least 1024", () => {
    const { use } = setup();
    const short = [b("s", 1000), b("u", 23)];
    for (let i = 0; i < 3; i++) expect(use(short).readTokens).toBe(0);
    use([b("s", 1000), b("u", 30)]);
    // 1000 alone was never stored; 1030 was.
    expect(use([b("s", 1000), b("x", 500)]).readTokens).toBe(0);
    expect(use([b("s", 1000), b("u", 30), b("x", 1)]).readTokens).toBe(1024);
  });

  it("keeps a prefix 5 minutes after its last use", () => {
    const { use, advance } = setup();
    use([system]);
    advance(4 * MINUTE);
    expect(use([system]).readTokens).toBe(1408);
    advance(4 * MINUTE); // 8 minutes after the first use, 4 after the hit
    expect(use([system]).readTokens).toBe(1408);
    advance(5 * MINUTE + 1);
    expect(use([system]).readTokens).toBe(0);
  });

  it("keeps caches apart per account, family and model; mapped credentials share one", () => {
    const { cache, use } = setup();
    use([system]);
    expect(use([system], "openai", "key-b").readTokens).toBe(0);
    expect(use([system], "openai", "key-a", "other-model").readTokens).toBe(0);
    expect(use([system], "openai", "key-a", "m", "azure").readTokens).toBe(0);
    cache.mapAccounts({ "key-c": "team", "key-d": "team" });
    use([system], "openai", "key-c");
    expect(use([system], "openai", "key-d").readTokens).toBe(1408);
  });

  it("never holds more than maxEntries prefixes; the oldest go first", () => {
    const { cache, use } = setup(2);
    use([b("p1", 1100)]);
    use([b("p2", 1100)]);
    use([b("p3", 1100)]);
    expect(cache.stats().entries).toBe(2);
    expect(use([b("p1", 1100)]).readTokens).toBe(0);
    expect(use([b("p3", 1100)]).readTokens).toBe(1024);
  });
});

describe("breakpoints (Anthropic, Converse)", () => {
  const rules: CacheRules = "anthropic";

  it("writes up to the last breakpoint, then reads it", () => {
    const { use } = setup();
    const turn1 = [b("tools", 200), b("system", 1000, "5m"), b("u1", 50, "5m")];
    expect(use(turn1, rules)).toEqual({ promptTokens: 1250, readTokens: 0, write5mTokens: 1250, write1hTokens: 0 });
    const turn2 = [b("tools", 200), b("system", 1000, "5m"), b("u1", 50), b("a1", 40), b("u2", 30, "5m")];
    expect(use(turn2, rules)).toEqual({ promptTokens: 1320, readTokens: 1250, write5mTokens: 70, write1hTokens: 0 });
  });

  it("caches nothing without a breakpoint, or below 1024 tokens", () => {
    const { use } = setup();
    const plain = [b("system", 2000), b("u1", 50)];
    use(plain, rules);
    expect(use(plain, rules)).toEqual({ promptTokens: 2050, readTokens: 0, write5mTokens: 0, write1hTokens: 0 });
    const small = [b("system", 900, "5m"), b("u1", 50, "5m")];
    use(small, rules);
    expect(use(small, rules)).toEqual({ promptTokens: 950, readTokens: 0, write5mTokens: 0, write1hTokens: 0 });
  });

  it("a breakpoint under the minimum adds its tokens to the next one's write", () => {
    const { use } = setup();
    expect(use([b("system", 800, "1h"), b("u1", 400, "5m")], rules)).toEqual({
      promptTokens: 1200,
      readTokens: 0,
      write5mTokens: 1200,
      write1hTokens: 0,
    });
  });

  it("splits writes by the lifetime of the breakpoint that ends each stretch; 1h entries outlive 5m ones", () => {
    const { use, advance } = setup();
    const blocks = [b("system", 1100, "1h"), b("doc", 300, "5m"), b("u1", 20)];
    expect(use(blocks, rules)).toEqual({ promptTokens: 1420, readTokens: 0, write5mTokens: 300, write1hTokens: 1100 });
    advance(30 * MINUTE);
    expect(use(blocks, rules)).toEqual({ promptTokens: 1420, readTokens: 1100, write5mTokens: 300, write1hTokens: 0 });
  });

  it("a read restarts the entry's lifetime", () => {
    const { use, advance } = setup();
    const blocks = [b("system", 1100, "5m"), b("u1", 20)];
    use(blocks, rules);
    advance(4 * MINUTE);
    expect(use(blocks, rules).readTokens).toBe(1100);
    advance(4 * MINUTE);
    expect(use(blocks, rules).readTokens).toBe(1100);
    advance(5 * MINUTE + 1);
    expect(use(blocks, rules).readTokens).toBe(0);
  });

  it("looks back up to 20 blocks from a breakpoint for an earlier cached boundary", () => {
    const { use } = setup();
    const history = (n: number) => Array.from({ length: n }, (_, i) => b(`m${i}`, 10));
    const turn1 = [b("system", 1100), ...history(5)];
    turn1[turn1.length - 1] = { ...turn1.at(-1)!, breakpoint: "5m" };
    use(turn1, rules); // caches 1150 tokens, 6 blocks
    // 19 more blocks, the breakpoint on the last: the cached boundary is 19 back (20 positions with the breakpoint's own).
    const near = [b("system", 1100), ...history(24)];
    near[near.length - 1] = { ...near.at(-1)!, breakpoint: "5m" };
    expect(use(near, rules)).toMatchObject({ readTokens: 1150, write5mTokens: 190 });
    // 20 more blocks from turn 1 (without the write above): out of reach.
    const { use: fresh } = setup();
    fresh(turn1, rules);
    const far = [b("system", 1100), ...history(25)];
    far[far.length - 1] = { ...far.at(-1)!, breakpoint: "5m" };
    expect(fresh(far, rules)).toMatchObject({ readTokens: 0, write5mTokens: 1350 });
  });
});

describe("stats", () => {
  it("count requests, reads and tokens per account, named by mapping or a digest, never the credential", () => {
    const { cache, use } = setup();
    cache.mapAccounts({ "sk-secret-team": "team" });
    use([b("system", 1100, "5m")], "anthropic", "sk-secret-team");
    use([b("system", 1100, "5m")], "anthropic", "sk-secret-team");
    use([b("system", 2000)], "openai", "sk-secret-other");
    const stats = cache.stats();
    expect(stats).toMatchObject({ enabled: true, requests: 3, reads: 1, inputTokens: 4200, cachedTokens: 1100, writeTokens: 1100 });
    expect(stats.byAccount.team).toEqual({ requests: 2, reads: 1, inputTokens: 2200, cachedTokens: 1100, writeTokens: 1100 });
    const other = Object.keys(stats.byAccount).find((name) => name !== "team")!;
    expect(other).toMatch(/^sha256:[0-9a-f]{8}$/);
    expect(JSON.stringify(stats)).not.toContain("sk-secret");
    cache.clear();
    expect(cache.stats()).toEqual({
      enabled: true,
      requests: 0,
      reads: 0,
      inputTokens: 0,
      cachedTokens: 0,
      writeTokens: 0,
      entries: 0,
      byAccount: {},
    });
  });
});

describe("prompt blocks", () => {
  it("canonical JSON sorts keys at every depth", () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { f: 2, e: 3 }], c: null } })).toBe('{"a":{"c":null,"d":[1,{"e":3,"f":2}]},"b":1}');
  });

  it("tokens are ceil(bytes of the canonical JSON / 4)", () => {
    const prompt = chatPrompt({ model: "m", messages: [{ role: "user", content: "é".repeat(10) }], max_tokens: 5 })!;
    const text = canonicalJson(["message", { role: "user", content: [{ type: "text", text: "é".repeat(10) }] }]);
    expect(prompt.blocks).toEqual([{ text, tokens: Math.ceil(Buffer.byteLength(text) / 4) }]);
    expect(prompt.maxTokens).toBe(5);
  });

  it("Anthropic: tools, system, content blocks in order; cache_control marks a breakpoint and is not content", () => {
    const body = {
      tools: [{ name: "t", input_schema: {}, cache_control: { type: "ephemeral", ttl: "1h" } }],
      system: [{ type: "text", text: "sys", cache_control: { type: "ephemeral" } }],
      messages: [
        { role: "user", content: "hi" },
        {
          role: "assistant",
          content: [
            { type: "text", text: "a" },
            { type: "text", text: "b", cache_control: { type: "ephemeral" } },
          ],
        },
      ],
    };
    const blocks = messagesPrompt(body)!.blocks;
    expect(blocks.map((block) => [JSON.parse(block.text)[0], block.breakpoint])).toEqual([
      ["tool", "1h"],
      ["system", "5m"],
      ["user", undefined],
      ["assistant", undefined],
      ["assistant", "5m"],
    ]);
    expect(blocks.some((block) => block.text.includes("cache_control"))).toBe(false);
    // A string is the one text block it stands for, with or without a marker.
    const marked = messagesPrompt({ messages: [{ role: "user", content: [{ type: "text", text: "hi", cache_control: {} }] }] })!;
    expect(marked.blocks[0]!.text).toBe(blocks[2]!.text);
  });

  it("Converse: a cachePoint item marks the block before it", () => {
    const body = {
      toolConfig: { tools: [{ toolSpec: { name: "t" } }, { cachePoint: { type: "default" } }] },
      system: [{ text: "sys" }, { cachePoint: { type: "default", ttl: "1h" } }],
      messages: [{ role: "user", content: [{ text: "hi" }, { cachePoint: { type: "default" } }] }],
      inferenceConfig: { maxTokens: 9 },
    };
    const prompt = conversePrompt(body)!;
    expect(prompt.blocks.map((block) => block.breakpoint)).toEqual(["5m", "1h", "5m"]);
    expect(prompt.maxTokens).toBe(9);
  });
});
