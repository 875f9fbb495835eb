// Conversation affinity end to end (issue 35): an agent's 40-turn conversation through `auto:balanced`
// with two equally priced models whose latencies cross mid-run. Without affinity (data plane 4, as main
// was) the turns move with the latencies; with it every turn stays where the first was answered, also
// when four data planes share the turns round-robin (pins in Redis). Then the ways a pin gives way that
// need a live call: its model failing mid-conversation (the next turn moves, pins there and stays), and
// a balance too small for its answer; and a data plane whose Redis is gone keeps serving.
import Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_REDIS_URL } from "../../../../deploy/test/test-services";
import { costToNano, type GatewayStack, marker, startStack, type TestProject } from "../harness/gateway-stack";
import { accessPath, chatModel, embeddingsModel, price } from "../support/catalogue-file";

const TURNS = 40;
/** The data planes sharing pins through Redis; the fifth runs without affinity, the sixth with its Redis gone. */
const SHARED = [0, 1, 2, 3];
const WITHOUT_AFFINITY = 4;
const REDIS_GONE = 5;

// Cache reads at a tenth of the input price, writes at 1.25x, as the providers bill them.
const CACHED = price("2", "8", { cached_input_per_m: "0.2", cache_write_5m_per_m: "2.5", cache_write_1h_per_m: "4" });
const balanced = (id: string, upstream: string, provider = "openai", credentials = "OPENAI_API_KEY", cost = CACHED) =>
  chatModel(id, [accessPath(provider, upstream, credentials, cost)], { tiers: [provider === "openai" ? "balanced" : "quality"] });

const CATALOGUE = {
  version: 1,
  defaults: { embeddings: "openai/text-embedding-3-small" },
  models: [
    balanced("acme/alpha", "alpha-1"),
    balanced("acme/beta", "beta-1"),
    balanced("acme/claude-alpha", "claude-alpha-1", "anthropic", "ANTHROPIC_API_KEY"),
    balanced("acme/claude-beta", "claude-beta-1", "anthropic", "ANTHROPIC_API_KEY"),
    chatModel("acme/pricey", [accessPath("openai", "pricey-1", "OPENAI_API_KEY", price("10", "1000"))], { tiers: ["economy"] }),
    embeddingsModel("openai/text-embedding-3-small", [
      accessPath("openai", "text-embedding-3-small", "OPENAI_API_KEY", price("0.02", "0")),
    ]),
  ],
};

const SYSTEM = `You are a coding agent. ${"Follow the repository's conventions; explain each change. ".repeat(120)}`;

interface Turn {
  model: string;
  reason: string;
  requestId: string;
  /** Input tokens, those read from the provider's cache, and the cost (nano-USD). */
  input: number;
  cached: number;
  costNano: bigint;
}

/** What share of a conversation's input its provider served from cache, and what it cost. */
const totals = (turns: Turn[]) => {
  const input = turns.reduce((sum, turn) => sum + turn.input, 0);
  const cached = turns.reduce((sum, turn) => sum + turn.cached, 0);
  return { cachedShare: cached / input, costNano: turns.reduce((sum, turn) => sum + turn.costNano, 0n) };
};

describe("conversation affinity", () => {
  let stack: GatewayStack;
  let project: TestProject;

  beforeAll(async () => {
    stack = await startStack({
      backend: "postgresql",
      dataPlanes: 6,
      mockAsProviders: ["anthropic"],
      dataPlaneEnv: { DEFAULT_RPM_LIMIT: "0" },
      dataPlaneEnvs: [
        ...SHARED.map(() => ({ REDIS_URL: TEST_REDIS_URL })),
        { AFFINITY_PIN_TTL_MS: "0" },
        { REDIS_URL: "redis://127.0.0.1:1" },
      ],
    });
    await stack.loadCatalogue(CATALOGUE);
    project = await stack.createProject({ balanceUsd: "50.00" });
    // The mock caches prompts as the providers do: cache hits come from where the turns land.
    const cache = await fetch(`${stack.mockUrl}/_mock/prompt-cache`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ enabled: true }),
    });
    expect(cache.status).toBe(200);
  });

  afterAll(async () => {
    await stack?.stop();
  });

  /** Upstream latencies by upstream model for this conversation's requests from now on (earlier scripts cleared). */
  async function latencies(tag: string, byModel: Record<string, number>): Promise<void> {
    await fetch(`${stack.mockUrl}/_mock/scripts`, { method: "DELETE" });
    for (const [model, latencyMs] of Object.entries(byModel))
      await stack.mockScript({ match: [tag, `"model":"${model}"`], times: 0, latencyMs });
  }

  /** The models a conversation's turns went to, turn by turn, switched each time the first ones' latencies cross. */
  async function converse(
    send: (history: { role: "user" | "assistant"; content: string }[], turn: number) => Promise<Turn>,
    tag: string,
    [first, second]: [string, string],
  ): Promise<Turn[]> {
    const history: { role: "user" | "assistant"; content: string }[] = [];
    const turns: Turn[] = [];
    // Each conversation starts with the providers' caches empty: its system prompt is every run's.
    await fetch(`${stack.mockUrl}/_mock/prompt-cache`, { method: "DELETE" });
    await latencies(tag, { [first]: 60, [second]: 0 });
    for (let turn = 0; turn < TURNS; turn++) {
      if (turn === TURNS / 2) await latencies(tag, { [first]: 0, [second]: 150 });
      history.push({ role: "user", content: turn === 0 ? `Fix the failing test ${tag}` : `Step ${turn}: go on.` });
      const answered = await send(history, turn);
      history.push({ role: "assistant", content: `Done with step ${turn}.` });
      turns.push(answered);
    }
    return turns;
  }

  const switches = (turns: Turn[]) => turns.slice(1).filter((turn, index) => turn.model !== turns[index]!.model).length;

  function chatSender(dataPlane: (turn: number) => number, model = "auto:balanced") {
    return async (history: { role: "user" | "assistant"; content: string }[], turn: number): Promise<Turn> => {
      const response = await stack.post(
        "/v1/chat/completions",
        project.key,
        { model, messages: [{ role: "system", content: SYSTEM }, ...history] },
        dataPlane(turn),
      );
      expect(response.status, await response.clone().text()).toBe(200);
      const { usage } = (await response.json()) as {
        usage: { prompt_tokens: number; prompt_tokens_details?: { cached_tokens?: number }; cost: number };
      };
      return {
        model: response.headers.get("x-service-model")!,
        reason: response.headers.get("x-service-reason")!,
        requestId: response.headers.get("x-request-id")!,
        input: usage.prompt_tokens,
        cached: usage.prompt_tokens_details?.cached_tokens ?? 0,
        costNano: costToNano(usage.cost),
      };
    };
  }

  /**
   * Path health keeps a path's last latency until the path is tried again, so one cold first call
   * (a new upstream connection on a loaded machine) could keep `auto` off that model for good. Warm
   * both paths on a data plane first, beta slower, so a conversation's first turn goes to alpha and
   * each crossing of the latencies moves the turns: two switches, whatever the machine's noise.
   */
  async function warmPaths(dataPlane: number): Promise<void> {
    const tag = marker();
    await stack.mockScript({ match: [tag, `"model":"beta-1"`], times: 0, latencyMs: 40 });
    for (const model of ["acme/pricey", "acme/alpha", "acme/beta"])
      for (let call = 0; call < (model === "acme/pricey" ? 1 : 8); call++) {
        const response = await stack.post(
          "/v1/chat/completions",
          project.key,
          { model, max_tokens: 16, messages: [{ role: "user", content: `warm ${tag}` }] },
          dataPlane,
        );
        expect(response.status, await response.clone().text()).toBe(200);
        await response.arrayBuffer();
      }
  }

  it("without affinity the turns follow the latencies and lose the cache; with it, they stay and cost what one path costs", async () => {
    await warmPaths(WITHOUT_AFFINITY);
    const wandering = await converse(
      chatSender(() => WITHOUT_AFFINITY),
      marker(),
      ["alpha-1", "beta-1"],
    );
    expect(switches(wandering)).toBeGreaterThanOrEqual(2);
    expect(wandering.every((turn) => !turn.reason.includes("affinity"))).toBe(true);

    const staying = await converse(
      chatSender(() => 0),
      marker(),
      ["alpha-1", "beta-1"],
    );
    expect(switches(staying)).toBe(0);
    expect(staying[0]!.reason).not.toMatch(/affinity/); // a first turn: no pin to speak of
    expect(staying.slice(1).every((turn) => turn.reason.endsWith("affinity kept"))).toBe(true);

    // The same conversation sent straight to the model the first turn went to, on a data plane without affinity.
    const straight = await converse(
      chatSender(() => WITHOUT_AFFINITY, staying[0]!.model),
      marker(),
      ["alpha-1", "beta-1"],
    );
    const [direct, pinned, moved] = [totals(straight), totals(staying), totals(wandering)];
    const share = (run: { cachedShare: number }) => `${(100 * run.cachedShare).toFixed(1)}% of input cached`;
    console.info(
      `40 turns: straight to one path ${share(direct)}, ${direct.costNano} nano-USD; with affinity ${share(pinned)}, ${pinned.costNano}; ` +
        `without (${switches(wandering)} switches) ${share(moved)}, ${moved.costNano}`,
    );
    expect(direct.cachedShare).toBeGreaterThan(0.5);
    expect(Math.abs(pinned.cachedShare - direct.cachedShare)).toBeLessThan(0.01);
    expect(Math.abs(Number(pinned.costNano - direct.costNano)) / Number(direct.costNano)).toBeLessThan(0.01);
    expect(moved.cachedShare).toBeLessThan(direct.cachedShare - 0.02);
    expect(moved.costNano).toBeGreaterThan(direct.costNano);
  });

  /** A Messages client in Claude Code's shape: its session in metadata.user_id, the system prompt and the last turn marked for the cache. */
  function messagesSender(dataPlane: (turn: number) => number, session: string, model = "auto:quality") {
    const clients = stack.dataPlanes.map((plane) => new Anthropic({ apiKey: project.key, baseURL: plane.ready.url, maxRetries: 0 }));
    return async (history: { role: "user" | "assistant"; content: string }[], turn: number): Promise<Turn> => {
      const last = history.at(-1)!;
      const messages: Anthropic.MessageParam[] = [
        ...history.slice(0, -1),
        { role: last.role, content: [{ type: "text", text: last.content, cache_control: { type: "ephemeral" } }] },
      ];
      const { data, response } = await clients[dataPlane(turn)]!.messages.create({
        model,
        max_tokens: 1024,
        metadata: { user_id: session },
        system: [{ type: "text", text: SYSTEM, cache_control: { type: "ephemeral" } }],
        tools: [
          { name: "Bash", description: "Run a command", input_schema: { type: "object", properties: { command: { type: "string" } } } },
        ],
        messages,
      } as never).withResponse();
      const usage = (data as Anthropic.Message).usage as Anthropic.Usage & { cost: number };
      return {
        model: response.headers.get("x-service-model")!,
        reason: response.headers.get("x-service-reason")!,
        requestId: response.headers.get("x-request-id")!,
        input: usage.input_tokens + (usage.cache_read_input_tokens ?? 0) + (usage.cache_creation_input_tokens ?? 0),
        cached: usage.cache_read_input_tokens ?? 0,
        costNano: costToNano(usage.cost),
      };
    };
  }

  it("four data planes behind round-robin share the pin (Redis): a Messages client in Claude Code's shape stays, and costs what one path costs", async () => {
    const session = (tag: string) => `user_abc_account_def_session_${tag.replace(/\W/g, "")}`;
    const tag = marker();
    const turns = await converse(
      messagesSender((turn) => SHARED[turn % SHARED.length]!, session(tag)),
      tag,
      ["claude-alpha-1", "claude-beta-1"],
    );
    expect(switches(turns)).toBe(0);
    expect(turns.slice(1).every((turn) => turn.reason.endsWith("affinity kept"))).toBe(true);

    const other = marker();
    const straight = await converse(
      messagesSender(() => WITHOUT_AFFINITY, session(other), turns[0]!.model),
      other,
      ["claude-alpha-1", "claude-beta-1"],
    );
    const [direct, pinned] = [totals(straight), totals(turns)];
    console.info(
      `40 Messages turns over 4 data planes: ${(100 * pinned.cachedShare).toFixed(1)}% of input cached, ${pinned.costNano} nano-USD; straight to one path ${(100 * direct.cachedShare).toFixed(1)}%, ${direct.costNano}`,
    );
    expect(direct.cachedShare).toBeGreaterThan(0.5);
    expect(Math.abs(pinned.cachedShare - direct.cachedShare)).toBeLessThan(0.01);
    expect(Math.abs(Number(pinned.costNano - direct.costNano)) / Number(direct.costNano)).toBeLessThan(0.01);
  });

  it("a pinned model failing mid-conversation: the turn moves, pins there, and the next turns stay", async () => {
    const tag = marker();
    const send = chatSender(() => 1);
    const history: { role: "user" | "assistant"; content: string }[] = [{ role: "user", content: `Plan the release ${tag}` }];
    const first = await send(history, 0);
    const pinned = first.model === "acme/alpha" ? "alpha-1" : "beta-1";
    history.push({ role: "assistant", content: "ok" }, { role: "user", content: "next" });
    await stack.mockScript({ match: [tag, `"model":"${pinned}"`], times: 0, status: 500 });
    const moved = await send(history, 1);
    expect(moved.model).not.toBe(first.model);
    expect(moved.reason).toMatch(/affinity broken \(failed\)$/);
    await fetch(`${stack.mockUrl}/_mock/scripts`, { method: "DELETE" });
    for (let turn = 2; turn < 5; turn++) {
      history.push({ role: "assistant", content: "ok" }, { role: "user", content: `step ${turn}` });
      const next = await send(history, turn);
      expect([next.model, next.reason.endsWith("affinity kept")]).toEqual([moved.model, true]);
    }
  });

  it("a pinned model whose answer the balance would cut gives way to one the hold covers whole", async () => {
    const poor = await stack.createProject({ balanceUsd: "0.10" });
    const tag = marker();
    const body = (messages: unknown[]) => ({ model: "acme/pricey", messages, service: { route: ["acme/pricey", "acme/alpha"] } });
    const history: unknown[] = [{ role: "user", content: `Summarise ${tag}` }];
    // The first turn: the pricey model answers, capped to what the balance covers, and is pinned.
    const first = await stack.post("/v1/chat/completions", poor.key, body(history), 2);
    expect(first.status).toBe(200);
    expect(first.headers.get("x-service-reason")).toMatch(/^acme\/pricey via openai, 1 attempt, max_tokens capped to \d+$/);
    history.push({ role: "assistant", content: "ok" }, { role: "user", content: "more" });
    const second = await stack.post("/v1/chat/completions", poor.key, body(history), 2);
    expect(second.status).toBe(200);
    expect(second.headers.get("x-service-model")).toBe("acme/alpha");
    expect(second.headers.get("x-service-reason")).toMatch(/affinity broken \(balance\)$/);
  });

  it("a data plane whose Redis is gone serves every turn, its pins its own", async () => {
    const turns = await converse(
      chatSender(() => REDIS_GONE),
      marker(),
      ["alpha-1", "beta-1"],
    );
    expect(switches(turns)).toBe(0);
  });

  it("counts kept and broken pins by reason", async () => {
    const metrics = await (await fetch(`${stack.dataPlanes[0]!.ready.metrics}/metrics`)).text();
    expect(metrics).toMatch(/gateway_affinity_turns_total\{outcome="kept",reason=""\} [1-9]/);
    const moved = await (await fetch(`${stack.dataPlanes[1]!.ready.metrics}/metrics`)).text();
    expect(moved).toMatch(/gateway_affinity_turns_total\{outcome="broken",reason="failed"\} 1/);
  });
});
