// The state report to the control plane: the same computation as GET /health, sent every interval and at
// once when the state changes (a circuit opens, the link drops, draining), never twice in a row for nothing;
// a failed send is logged once and tried again at the next tick.
import type { DataPlaneReport } from "@gateway/proto";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { CatalogueSnapshot } from "../../src/catalogue/catalogue-snapshot";
import { healthDetail, type HealthSources } from "../../src/health/health-state";
import { buildReport, StateReporter } from "../../src/health/state-reporter";
import type { KeyPoolView } from "../../src/providers/key-pool/key-pool";
import type { CircuitView } from "../../src/routing/circuit-breaker";

const IDENTITY = { replicaId: "dp-1", version: "1.0.0", startedAtMs: 1_700_000_000_000, intervalMs: 5000 };

function sources() {
  const state = {
    draining: false,
    connected: true,
    stalled: false,
    mode: "redis",
    circuits: [] as CircuitView[],
    pools: [] as KeyPoolView[],
  };
  const health: HealthSources = {
    draining: () => state.draining,
    catalogue: () => ({ revision: "7" }) as CatalogueSnapshot,
    controlPlane: {
      get connected() {
        return state.connected;
      },
      lastContactMs: Date.now(),
      stall: {
        get stalled() {
          return state.stalled;
        },
      },
    },
    controlPlaneGraceMs: 300_000,
    rateLimiter: {
      get mode() {
        return state.mode;
      },
    },
    drawJournal: { mode: "redis" },
    circuitViews: () => state.circuits,
    keyPools: () => state.pools,
  };
  return { state, health };
}

describe("state reporter", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(1_800_000_000_000);
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("reports what /health computes, with who it is", () => {
    const { state, health } = sources();
    state.circuits = [
      { path: "openai/a", state: "open", consecutive_failures: 3, opens: 1, retry_in_ms: 10, projects_open: 1 },
      { path: "openai/b", state: "closed", consecutive_failures: 0, opens: 0, projects_open: 0 },
    ];
    state.mode = "local fallback (Redis unreachable; limit / 2 replicas)";
    const report = buildReport(health, IDENTITY);
    const detail = healthDetail(health);
    expect(report).toEqual({
      replicaId: "dp-1",
      version: "1.0.0",
      startedAtUnixMs: "1700000000000",
      reportIntervalMs: 5000,
      draining: false,
      unavailableReason: "",
      controlPlaneLink: detail.control_plane,
      controlPlaneCalls: detail.control_plane_calls,
      catalogueRevision: "7",
      rateLimit: detail.rate_limit,
      circuits: [{ path: "openai/a", state: "open", consecutiveFailures: 3, opens: 1, projectsOpen: 1 }],
      keyPools: [],
    });
  });

  it("reports each pool of provider keys by fingerprint, and a key's change of state at once (not its use)", async () => {
    const { state, health } = sources();
    const key = {
      fingerprint: "0a1b2c3d",
      group: "acct-a",
      weight: 2,
      rpm: 500,
      tpm: null,
      state: "active" as const,
      until: null,
      requests_last_minute: 3,
      tokens_last_minute: 120,
    };
    state.pools = [{ pool: "OPENAI_API_KEY", source: "OPENAI_API_KEYS", keys: [key] }];
    expect(buildReport(health, IDENTITY).keyPools).toEqual([
      {
        pool: "OPENAI_API_KEY",
        source: "OPENAI_API_KEYS",
        keys: [
          {
            fingerprint: "0a1b2c3d",
            group: "acct-a",
            weight: 2,
            rpm: 500,
            tpm: "0",
            state: "active",
            untilUnixMs: "0",
            requestsLastMinute: 3,
            tokensLastMinute: "120",
          },
        ],
      },
    ]);
    const sent: DataPlaneReport[] = [];
    const reporter = new StateReporter(health, async (report) => void sent.push(report), IDENTITY, { warn: vi.fn(), info: vi.fn() });
    await reporter.tick();
    state.pools = [{ ...state.pools[0]!, keys: [{ ...key, requests_last_minute: 9, tokens_last_minute: 900 }] }];
    await reporter.tick();
    expect(sent).toHaveLength(1); // use alone is no change worth a report
    const until = new Date(Date.now() + 2_000).toISOString();
    state.pools = [{ ...state.pools[0]!, keys: [{ ...key, state: "cooling", until }] }];
    await reporter.tick();
    expect(sent).toHaveLength(2);
    expect(sent.at(-1)!.keyPools![0]!.keys![0]).toMatchObject({ state: "cooling", untilUnixMs: String(Date.parse(until)) });
  });

  it("sends every interval, and at once on a change of state", async () => {
    const { state, health } = sources();
    const sent: DataPlaneReport[] = [];
    const reporter = new StateReporter(health, async (report) => void sent.push(report), IDENTITY, { warn: vi.fn(), info: vi.fn() });
    await reporter.tick();
    await reporter.tick();
    expect(sent).toHaveLength(1); // nothing changed, the interval is not up
    state.circuits = [{ path: "openai/a", state: "open", consecutive_failures: 3, opens: 1, projects_open: 0 }];
    await reporter.tick();
    expect(sent.at(-1)!.circuits).toHaveLength(1);
    state.circuits = [{ ...state.circuits[0]!, consecutive_failures: 4 }];
    await reporter.tick();
    expect(sent).toHaveLength(2); // a failure count alone is no change worth a report
    vi.setSystemTime(Date.now() + IDENTITY.intervalMs);
    await reporter.tick();
    expect(sent).toHaveLength(3);
    state.connected = false;
    await reporter.tick();
    expect(sent.at(-1)!.controlPlaneLink).toBe("reconnecting");
    state.draining = true;
    await reporter.tick();
    expect(sent.at(-1)).toMatchObject({ draining: true, unavailableReason: "draining" });
    expect(sent).toHaveLength(5);
  });

  it("logs a failed send once, and sends again at the next tick until it goes through", async () => {
    const { health } = sources();
    const log = { warn: vi.fn(), info: vi.fn() };
    let failing = true;
    let attempts = 0;
    const reporter = new StateReporter(
      health,
      async () => {
        attempts++;
        if (failing) throw new Error("control plane unreachable");
      },
      IDENTITY,
      log,
    );
    await reporter.tick();
    await reporter.tick();
    await reporter.tick();
    expect(attempts).toBe(3);
    expect(log.warn).toHaveBeenCalledTimes(1);
    failing = false;
    await reporter.tick();
    expect(log.info).toHaveBeenCalledTimes(1);
    await reporter.tick();
    expect(attempts).toBe(4); // sent: the next waits for the interval
  });
});
