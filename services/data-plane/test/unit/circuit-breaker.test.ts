import { describe, expect, it } from "vitest";
import { CircuitBreakers } from "../../src/routing/circuit-breaker";
import { PathHealth } from "../../src/routing/path-health";

function breakers(threshold = 3, cooldownMs = 1000) {
  const clock = { now: 0 };
  return { clock, circuits: new CircuitBreakers({ failureThreshold: threshold, cooldownMs }, () => clock.now) };
}

const fail = (circuits: CircuitBreakers, key: string, times: number) => {
  for (let i = 0; i < times; i++) circuits.record(key, false);
};

describe("circuit breaker", () => {
  it("stays closed below the threshold of consecutive failures, and a success resets the count", () => {
    const { circuits } = breakers(3);
    fail(circuits, "p", 2);
    circuits.record("p", true);
    fail(circuits, "p", 2);
    expect(circuits.state("p")).toBe("closed");
    expect(circuits.admit("p")).toBe(true);
  });

  it("opens at the threshold and refuses calls for the cool-down", () => {
    const { circuits, clock } = breakers(3, 1000);
    fail(circuits, "p", 3);
    expect(circuits.state("p")).toBe("open");
    expect(circuits.admit("p")).toBe(false);
    clock.now = 999;
    expect(circuits.admit("p")).toBe(false);
    expect(circuits.views()).toEqual([{ path: "p", state: "open", consecutive_failures: 3, opens: 1, retry_in_ms: 1 }]);
  });

  it("lets exactly one probe through when half-open; its success closes the circuit", () => {
    const { circuits, clock } = breakers(3, 1000);
    fail(circuits, "p", 3);
    clock.now = 1000;
    expect(circuits.state("p")).toBe("half_open");
    expect(circuits.admit("p")).toBe(true);
    expect(circuits.admit("p")).toBe(false);
    circuits.record("p", true);
    expect(circuits.state("p")).toBe("closed");
    expect(circuits.admit("p")).toBe(true);
  });

  it("opens again when the probe fails, for a fresh cool-down", () => {
    const { circuits, clock } = breakers(3, 1000);
    fail(circuits, "p", 3);
    clock.now = 1500;
    expect(circuits.admit("p")).toBe(true);
    circuits.record("p", false);
    expect(circuits.state("p")).toBe("open");
    clock.now = 2400;
    expect(circuits.admit("p")).toBe(false);
    clock.now = 2500;
    expect(circuits.admit("p")).toBe(true);
    expect(circuits.views()[0]!.opens).toBe(2);
  });

  it("lets another probe through when the first never reported within a cool-down", () => {
    const { circuits, clock } = breakers(3, 1000);
    fail(circuits, "p", 3);
    clock.now = 1000;
    expect(circuits.admit("p")).toBe(true);
    clock.now = 1999;
    expect(circuits.admit("p")).toBe(false);
    clock.now = 2000;
    expect(circuits.admit("p")).toBe(true);
  });

  it("does not reopen on a late failure of a call admitted before the circuit opened", () => {
    const { circuits, clock } = breakers(3, 1000);
    fail(circuits, "p", 3);
    clock.now = 500;
    circuits.record("p", false);
    clock.now = 1000;
    expect(circuits.state("p")).toBe("half_open");
    expect(circuits.views()[0]!.opens).toBe(1);
  });

  it("keeps paths apart", () => {
    const { circuits } = breakers(2);
    fail(circuits, "a", 2);
    expect(circuits.admit("a")).toBe(false);
    expect(circuits.admit("b")).toBe(true);
  });
});

describe("path health with its circuit", () => {
  it("reports an open circuit's path as unhealthy, whatever its error rate", () => {
    const clock = { now: 0 };
    const health = new PathHealth({ errorHalfLifeMs: 30_000, failureThreshold: 2, cooldownMs: 1000 }, () => clock.now);
    health.record("p", { ok: false, latencyMs: 10 });
    health.record("p", { ok: false, latencyMs: 10 });
    // Two observations are too few for the error rate to count; the circuit alone demotes the path.
    expect(health.view("p")).toMatchObject({ healthy: false, circuit: "open" });
    expect(health.admit("p")).toBe(false);
    clock.now = 1000;
    expect(health.view("p")).toMatchObject({ healthy: true, circuit: "half_open" });
  });
});

describe("circuits and projects", () => {
  const settings = { errorHalfLifeMs: 30_000, failureThreshold: 3, cooldownMs: 1000, minProjects: 2 };
  const failFor = (health: PathHealth, project: string | undefined, times: number) => {
    for (let i = 0; i < times; i++) health.record("p", { ok: false, latencyMs: 10, project });
  };

  it("one project's consecutive failures open its own circuit, not the path's", () => {
    const health = new PathHealth(settings, () => 0);
    failFor(health, "a", 10);
    expect(health.admit("p", "a")).toBe(false);
    expect(health.admit("p", "b")).toBe(true);
    expect(health.view("p").circuit).toBe("closed");
    expect(health.circuitViews()).toEqual([{ path: "p", state: "closed", consecutive_failures: 10, opens: 0, projects_open: 1 }]);
  });

  it("failures from two projects in a row open the path's circuit for every project", () => {
    const health = new PathHealth(settings, () => 0);
    failFor(health, "a", 2);
    failFor(health, "b", 1);
    expect(health.view("p").circuit).toBe("open");
    expect(health.admit("p", "c")).toBe(false);
  });

  it("another project's success between them resets the evidence", () => {
    const health = new PathHealth(settings, () => 0);
    failFor(health, "a", 2);
    health.record("p", { ok: true, latencyMs: 10, project: "b" });
    failFor(health, "b", 2);
    expect(health.view("p").circuit).toBe("closed");
    expect(health.admit("p", "c")).toBe(true);
  });

  it("a failure about the path itself (no project: our key refused, the host unreachable) counts for everyone", () => {
    const health = new PathHealth(settings, () => 0);
    failFor(health, "a", 2);
    failFor(health, undefined, 1);
    expect(health.view("p").circuit).toBe("open");
  });

  it("a project's circuit half-opens after the cool-down, and its probe's success forgets it", () => {
    const clock = { now: 0 };
    const health = new PathHealth(settings, () => clock.now);
    failFor(health, "a", 3);
    expect(health.admit("p", "a")).toBe(false);
    clock.now = 1000;
    expect(health.admit("p", "a")).toBe(true);
    expect(health.admit("p", "a")).toBe(false); // one probe at a time
    health.record("p", { ok: true, latencyMs: 10, project: "a" });
    expect(health.admit("p", "a")).toBe(true);
    expect(health.circuitViews()[0]!.projects_open).toBe(0);
  });
});
