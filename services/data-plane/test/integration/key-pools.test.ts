// Pools of provider keys end to end (docs/providers.md, "Pools of keys"): a data plane with three OpenAI
// keys (weights 3, 1 and 2; two accounts), the mock provider taking any key, and the Authorization each
// upstream request carried read back from the mock's log. Calls spread by weight; a key answered 429 with
// `retry-after: 2` rests for those 2 s while the call moves at once to another key of its account and the
// others take the load by weight, then serves again; a conversation's turns keep to one account; a 401
// takes a key out; with every key of the direct path rate limited the next path serves, and with no other
// path the caller gets the upstream's 429 as before. No key appears in /health, /metrics or a log line
// (the stack's own check at stop covers the logs).
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LOG_FLUSH_MS } from "../../src/log-destination";
import { type GatewayStack, marker, type MockRequest, startStack, type TestProject } from "../harness/gateway-stack";
import { accessPath, catalogueOf, chatModel } from "../support/catalogue-file";

const KEYS = { A: "sk-pool-alpha-7f3a91c2", B: "sk-pool-bravo-2c8d44e0", C: "sk-pool-charlie-9e1b07aa" } as const;
const SHARED_ACCOUNT = { D: "sk-pool-delta-41b7c0de", E: "sk-pool-echo-88a2f31b" } as const;
type Name = keyof typeof KEYS;
const GROUP: Record<Name, string> = { A: "acct-a", B: "acct-a", C: "acct-b" };
const fingerprint = (key: string) => createHash("sha256").update(key).digest("hex").slice(0, 8);
const FINGERPRINT = Object.fromEntries(Object.entries(KEYS).map(([name, key]) => [name, fingerprint(key)])) as Record<Name, string>;
/** Which of the pool's keys a request the mock received carried. */
const keyOf = (request: MockRequest): Name | "other" =>
  (Object.entries(KEYS).find(([, key]) => request.headers.authorization === `Bearer ${key}`)?.[0] as Name | undefined) ?? "other";
const tally = (names: string[]) =>
  Object.fromEntries([...new Set(names)].sort().map((name) => [name, names.filter((n) => n === name).length]));

const POOLED = "acme/pooled";
const SOLO = "acme/solo";
const CATALOGUE = catalogueOf([
  // Two paths: OpenAI direct (the pool), then OpenRouter (one key); distinct upstream ids, so a script can fail the direct path alone.
  chatModel(POOLED, [accessPath("openai", "pooled-1", "OPENAI_API_KEY"), accessPath("openrouter", POOLED, "OPENROUTER_API_KEY")]),
  chatModel(SOLO, [accessPath("openai", "solo-1", "OPENAI_API_KEY")]),
]);

interface KeyView {
  fingerprint: string;
  group: string;
  weight: number;
  state: string;
  until: string | null;
  requests_last_minute: number;
}

describe("pools of provider keys", () => {
  let stack: GatewayStack;
  let project: TestProject;

  beforeAll(async () => {
    stack = await startStack({
      backend: "pglite",
      mockApiKey: "", // the mock takes any key: each of the pool's is an account of its own there
      mockAsProviders: ["openrouter"],
      dataPlanes: 2,
      dataPlaneEnv: {
        OPENAI_API_KEY: "", // the harness's single key: the pool below takes its place
        OPENAI_API_KEYS: `${KEYS.A};weight=3;group=acct-a, ${KEYS.B};group=acct-a, ${KEYS.C};weight=2;group=acct-b`,
        DATA_PLANE_REPORT_INTERVAL_MS: "1000",
      },
      // Data plane 1: two keys of one account, for the cache they share.
      dataPlaneEnvs: [{}, { OPENAI_API_KEYS: `${SHARED_ACCOUNT.D};group=acct-d, ${SHARED_ACCOUNT.E};group=acct-d` }],
    });
    await stack.loadCatalogue(CATALOGUE);
    project = await stack.createProject({ balanceUsd: "5.00" });
  });

  afterAll(async () => {
    await stack?.stop();
  });

  /** A call of `model` (its message `tag`); its answer and the upstream requests it made, with the keys they carried. */
  async function call(model = POOLED, extra: Record<string, unknown> = {}, tag = marker()) {
    const started = Date.now();
    const response = await stack.post("/v1/chat/completions", project.key, {
      model,
      service: {},
      messages: [{ role: "user", content: tag }],
      ...extra,
    });
    const body = (await response.json()) as { service?: { reason: { attempts: { path: string; outcome: string }[] } } };
    const sent = await stack.mockRequestsWith(tag);
    return {
      status: response.status,
      headers: response.headers,
      body,
      ms: Date.now() - started,
      attempts: body.service?.reason.attempts.map((attempt) => `${attempt.outcome} ${attempt.path}`),
      keys: sent.map(keyOf),
      sent,
    };
  }

  const pool = async () => {
    const health = await stack.dataPlaneHealth<{ key_pools: { pool: string; source: string; keys: KeyView[] }[] }>();
    return health.detail.key_pools.find((entry) => entry.pool === "OPENAI_API_KEY")!;
  };
  const keyView = async (name: Name) => (await pool()).keys.find((key) => key.fingerprint === FINGERPRINT[name])!;

  it("shows the pool on /health by fingerprint, group and weight, and spreads calls by weight: each round of 6 gives A 3, B 1, C 2", async () => {
    expect(await pool()).toEqual({
      pool: "OPENAI_API_KEY",
      source: "OPENAI_API_KEYS",
      keys: (["A", "B", "C"] as const).map((name) =>
        expect.objectContaining({
          fingerprint: FINGERPRINT[name],
          group: GROUP[name],
          weight: { A: 3, B: 1, C: 2 }[name],
          state: "active",
        }),
      ),
    });
    const keys: string[] = [];
    for (let index = 0; index < 12; index++) {
      const answer = await call();
      expect(answer.status).toBe(200);
      keys.push(...answer.keys);
    }
    expect(tally(keys.slice(0, 6))).toEqual({ A: 3, B: 1, C: 2 });
    expect(tally(keys.slice(6))).toEqual({ A: 3, B: 1, C: 2 });
    expect((await pool()).keys.map((key) => key.requests_last_minute)).toEqual([6, 2, 4]);
  });

  it("a key answered 429 with retry-after: 2 rests for 2 s while the call moves at once to its account's other key; then it serves again", async () => {
    const tag = marker();
    await stack.mockScript({ match: tag, times: 1, status: 429, headers: { "retry-after": "2" } });
    const limited = await call(POOLED, {}, tag);
    const [first, second] = limited.sent;
    const resting = keyOf(first!);
    const restsUntil = first!.receivedAt + 2_000;
    expect(limited.status).toBe(200);
    expect(limited.attempts).toEqual(["http_429 openai", "ok openai"]);
    expect(first!.responseStatus).toBe(429);
    // Another key of the same account, at once: no wait for the Retry-After.
    const other = keyOf(second!);
    expect(other).not.toBe(resting);
    expect(GROUP[other as Name]).toBe(GROUP[resting as Name]);
    expect(limited.ms).toBeLessThan(1_500);
    const view = await keyView(resting as Name);
    expect(view.state).toBe("cooling");
    expect(Math.abs(Date.parse(view.until!) - restsUntil)).toBeLessThan(500);

    // While it rests, the others take every call, by their weights.
    const during: { name: string; at: number }[] = [];
    for (let index = 0; index < 6; index++) {
      const answer = await call();
      expect(answer.status).toBe(200);
      during.push(...answer.sent.map((request) => ({ name: keyOf(request), at: request.receivedAt })));
    }
    const resting429 = during.filter((use) => use.at < restsUntil - 50);
    expect(resting429.map((use) => use.name)).not.toContain(resting);
    const weights = { A: 3, B: 1, C: 2 };
    if (resting429.length === 6) {
      const others = (Object.keys(weights) as Name[]).filter((name) => name !== resting);
      const counts = tally(resting429.map((use) => use.name));
      const total = others.reduce((sum, name) => sum + weights[name], 0);
      for (const name of others) expect(Math.abs(counts[name]! - (6 * weights[name]) / total)).toBeLessThanOrEqual(1);
    }

    // After its 2 s it serves again.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, restsUntil + 100 - Date.now())));
    expect((await keyView(resting as Name)).state).toBe("active");
    const after: string[] = [];
    for (let index = 0; index < 6; index++) after.push(...(await call()).keys);
    expect(after).toContain(resting);

    const metrics = await (await fetch(`${stack.metricsUrl}/metrics`)).text();
    expect(metrics).toContain(
      `gateway_provider_key_requests_total{pool="OPENAI_API_KEY",key="${FINGERPRINT[resting as Name]}",outcome="rate_limited"} 1`,
    );
    expect(metrics).toMatch(/^gateway_provider_keys\{pool="OPENAI_API_KEY",state="active"\} 3$/m);
  });

  it("one key answering 429 on every call: no request fails, it rests for each Retry-After, the others carry the load by weight", async () => {
    await stack.mockScript({ match: '"model":"pooled-1"', credential: KEYS.B, times: 0, status: 429, headers: { "retry-after": "1" } });
    try {
      const answered: string[] = [];
      const triedB: number[] = [];
      const until = Date.now() + 3_000;
      while (Date.now() < until) {
        const answer = await call();
        expect(answer.status).toBe(200);
        for (const request of answer.sent) if (keyOf(request) === "B") triedB.push(request.receivedAt);
        answered.push(keyOf(answer.sent.at(-1)!));
        // Paced: unpaced, a fast machine sent past the project's 600 requests a minute, and the gateway's own 429 failed this and the next tests.
        await new Promise((resolve) => setTimeout(resolve, 15));
      }
      expect(answered).not.toContain("B");
      // B was tried again only once each rest was over (the mock's clock: its receive times).
      expect(triedB.length).toBeGreaterThanOrEqual(1);
      for (const [index, at] of triedB.slice(1).entries()) expect(at - triedB[index]!).toBeGreaterThanOrEqual(950);
      const counts = tally(answered);
      expect(Math.abs(counts.A! / counts.C! - 3 / 2)).toBeLessThan(0.5);
    } finally {
      await fetch(`${stack.mockUrl}/_mock/scripts`, { method: "DELETE" });
    }
  });

  it("a conversation spread over its account's two keys keeps its provider cache (the mock caches per account)", async () => {
    const json = { "content-type": "application/json" };
    await fetch(`${stack.mockUrl}/_mock/prompt-cache`, { method: "POST", headers: json, body: JSON.stringify({ enabled: true }) });
    await fetch(`${stack.mockUrl}/_mock/prompt-cache/accounts`, {
      method: "POST",
      headers: json,
      body: JSON.stringify({ [SHARED_ACCOUNT.D]: "account-d", [SHARED_ACCOUNT.E]: "account-d" }),
    });
    try {
      const system = { role: "system", content: "Answer as the release manager would. ".repeat(200) };
      const messages: unknown[] = [system, { role: "user", content: `Plan the release ${marker()}` }];
      const used: string[] = [];
      const cached: number[] = [];
      for (let turn = 0; turn < 6; turn++) {
        const response = await stack.post("/v1/chat/completions", project.key, { model: SOLO, messages }, 1);
        expect(response.status).toBe(200);
        const { usage } = (await response.json()) as { usage: { prompt_tokens_details: { cached_tokens: number } } };
        cached.push(usage.prompt_tokens_details.cached_tokens);
        const sent = (await stack.mockRequests()).at(-1)!;
        used.push(sent.headers.authorization === `Bearer ${SHARED_ACCOUNT.D}` ? "D" : "E");
        messages.push({ role: "assistant", content: `Step ${turn}.` }, { role: "user", content: "Go on." });
      }
      expect(new Set(used)).toEqual(new Set(["D", "E"])); // spread over both keys, by their equal weights
      expect(cached.slice(1).every((tokens) => tokens > 0)).toBe(true); // and every turn after the first read the cache
    } finally {
      await fetch(`${stack.mockUrl}/_mock/prompt-cache`, { method: "POST", headers: json, body: JSON.stringify({ enabled: false }) });
    }
  });

  it("keeps a conversation's turns on one account's keys, while other calls spread over all", async () => {
    const turns: string[] = [];
    for (let index = 0; index < 6; index++) {
      const turn = await call(POOLED, { prompt_cache_key: "pooled-conversation" });
      expect(turn.status).toBe(200);
      turns.push(...turn.keys);
      await call(); // another caller's call in between
    }
    expect(new Set(turns.map((name) => GROUP[name as Name])).size).toBe(1);
  });

  it("takes a key its upstream refused (401) out of the pool, logged once by fingerprint, and the call moves to another key", async () => {
    const tag = marker();
    await stack.mockScript({ match: tag, times: 1, status: 401 });
    const refusedCall = await call(POOLED, {}, tag);
    expect(refusedCall.status).toBe(200);
    expect(refusedCall.attempts).toEqual(["http_401 openai", "ok openai"]);
    const refused = refusedCall.keys[0] as Name;
    expect(refusedCall.keys[1]).not.toBe(refused);
    const view = await keyView(refused);
    expect(view.state).toBe("refused");
    expect(Date.parse(view.until!) - Date.now()).toBeGreaterThan(9 * 60_000);
    const later: string[] = [];
    for (let index = 0; index < 8; index++) later.push(...(await call()).keys);
    expect(later).not.toContain(refused);
    // The data plane writes its log lines in batches.
    await new Promise((resolve) => setTimeout(resolve, 3 * LOG_FLUSH_MS));
    const lines = stack.dataPlanes[0]!.output()
      .split("\n")
      .filter((line) => line.includes("provider key refused"));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`"key":"${FINGERPRINT[refused]}"`);
    expect(lines[0]).toContain('"pool":"OPENAI_API_KEY"');
    // The control plane shows it too, as the report's reason.
    await expect
      .poll(
        async () => (await stack.admin<{ data_planes: { reasons: string[] }[] }>("GET", "/admin/health")).json.data_planes[0]!.reasons,
        {
          timeout: 5_000,
        },
      )
      .toContain(`provider key refused: OPENAI_API_KEY ${FINGERPRINT[refused]}`);
  });

  it("with every key of the direct path rate limited, the next path serves the call", async () => {
    await stack.mockScript({ match: '"model":"pooled-1"', times: 20, status: 429, headers: { "retry-after": "30" } });
    try {
      const answer = await call();
      expect(answer.status).toBe(200);
      expect(answer.attempts!.at(-1)).toBe("ok openrouter");
      expect(answer.attempts!.slice(0, -1).every((attempt) => attempt === "http_429 openai")).toBe(true);
      expect(answer.attempts!.length).toBeLessThanOrEqual(4);
      expect(answer.ms).toBeLessThan(5_000);
    } finally {
      await fetch(`${stack.mockUrl}/_mock/scripts`, { method: "DELETE" });
    }
  });

  it("with no other path, the caller gets the upstream's 429 and its Retry-After, as with a single key", async () => {
    await stack.mockScript({ match: '"model":"solo-1"', times: 20, status: 429, headers: { "retry-after": "30" } });
    try {
      const answer = await call(SOLO);
      expect(answer.status).toBe(429);
      expect((answer.body as unknown as { error: { type: string } }).error.type).toBe("rate_limit_error");
      expect(answer.headers.get("retry-after")).toBe("30");
      expect(answer.keys.length).toBeGreaterThanOrEqual(1);
      expect(answer.keys.length).toBeLessThanOrEqual(4);
    } finally {
      await fetch(`${stack.mockUrl}/_mock/scripts`, { method: "DELETE" });
    }
  });

  it("never shows a key: /health and /metrics name them by fingerprint only", async () => {
    const health = JSON.stringify(await stack.dataPlaneHealth());
    const metrics = await (await fetch(`${stack.metricsUrl}/metrics`)).text();
    const admin = JSON.stringify((await stack.admin("GET", "/admin/health")).json);
    for (const key of [...Object.values(KEYS), ...Object.values(SHARED_ACCOUNT)])
      for (const shown of [health, metrics, admin]) expect(shown).not.toContain(key);
    for (const name of ["A", "B", "C"] as const) {
      expect(health).toContain(FINGERPRINT[name]);
      expect(metrics).toContain(`key="${FINGERPRINT[name]}"`);
      expect(admin).toContain(FINGERPRINT[name]);
    }
  });
});
