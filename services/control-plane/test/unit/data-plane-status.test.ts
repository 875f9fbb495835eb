// A data plane's status in words from its latest report (GET /admin/health).
import { describe, expect, it } from "vitest";
import type { StoredReport } from "../../src/health/data-plane-reports";
import { dataPlaneStatus } from "../../src/health/data-plane-status";

const healthy: StoredReport = {
  replicaId: "dp",
  controlPlaneReplica: "cp",
  version: "dev",
  startedAt: new Date(0),
  reportIntervalMs: 5000,
  draining: false,
  unavailableReason: null,
  controlPlaneLink: "connected",
  controlPlaneCalls: "in_time",
  catalogueRevision: "3",
  rateLimit: "redis",
  circuits: [],
  keyPools: [],
  reportedAt: new Date(0),
  ageMs: 1000,
};

describe("data-plane status", () => {
  it.each([
    [{}, "ok", []],
    [{ rateLimit: "local" }, "ok", []],
    [{ controlPlaneLink: "reconnecting" }, "degraded", ["control-plane link reconnecting"]],
    [{ controlPlaneCalls: "stalled" }, "degraded", ["calls to the control plane stalled"]],
    [{ rateLimit: "local fallback (Redis unreachable; limit / 2 replicas)" }, "degraded", ["rate limiting is local: Redis unreachable"]],
    [
      {
        circuits: [
          { path: "openai/a", state: "open", consecutive_failures: 5, opens: 1, projects_open: 0 },
          { path: "openai/b", state: "half_open", consecutive_failures: 5, opens: 1, projects_open: 0 },
          { path: "openai/c", state: "closed", consecutive_failures: 0, opens: 0, projects_open: 2 },
        ],
      },
      "degraded",
      ["circuit open: openai/a", "circuit half-open: openai/b", "circuit open for 2 project(s): openai/c"],
    ],
    [
      {
        keyPools: [
          {
            pool: "OPENAI_API_KEY",
            source: "OPENAI_API_KEYS",
            keys: ["active", "cooling", "refused"].map((state, index) => ({
              fingerprint: `0000000${index}`,
              group: "acct-a",
              weight: 1,
              rpm: null,
              tpm: null,
              state,
              until: state === "active" ? null : "2026-01-01T00:00:00.000Z",
              requests_last_minute: 1,
              tokens_last_minute: 10,
            })),
          },
        ],
      },
      "degraded",
      ["provider key refused: OPENAI_API_KEY 00000002"],
    ],
    [
      { unavailableReason: "no catalogue received from the control plane yet" },
      "unavailable",
      ["no catalogue received from the control plane yet"],
    ],
    [{ draining: true, unavailableReason: "draining" }, "draining", ["shutting down: finishing its requests"]],
    [{ ageMs: 15_000 }, "ok", []],
    [{ ageMs: 15_001, draining: true }, "silent", ["no report for 15 s (one is sent every 5 s)"]],
  ] as const)("%j: %s", (change, status, reasons) => {
    expect(dataPlaneStatus({ ...healthy, ...change } as StoredReport)).toEqual({ status, reasons });
  });
});
