import { describe, expect, it } from "vitest";
import { StallCircuit } from "../../src/control-plane/stall-circuit";

describe("stall circuit on the control-plane link", () => {
  const setup = () => {
    const clock = { now: 0 };
    return { clock, circuit: new StallCircuit(5000, () => clock.now) };
  };

  it("lets every call go while calls come back in time, and refusals or failures do not open it", () => {
    const { circuit } = setup();
    expect(circuit.admit()).toEqual({ go: true, probe: false });
    circuit.ended("failed");
    circuit.ended("answered");
    expect(circuit.stalled).toBe(false);
  });

  it("after a deadline run out, refuses admission calls at once, and lets one probe through per deadline", () => {
    const { circuit, clock } = setup();
    clock.now = 10_000;
    circuit.ended("deadline");
    expect(circuit.stalled).toBe(true);
    expect(circuit.admit().go).toBe(false);
    clock.now = 14_999;
    expect(circuit.admit().go).toBe(false);
    clock.now = 15_000;
    expect(circuit.admit()).toEqual({ go: true, probe: true });
    expect(circuit.admit().go).toBe(false); // one probe at a time
    clock.now = 20_000;
    circuit.ended("deadline", true);
    expect(circuit.admit().go).toBe(false); // the next probe a deadline after this one ended
    clock.now = 25_000;
    expect(circuit.admit()).toEqual({ go: true, probe: true });
    circuit.ended("answered", true);
    expect(circuit.stalled).toBe(false);
    expect(circuit.admit()).toEqual({ go: true, probe: false });
    expect(circuit.fastFailures).toBe(4);
  });

  it("closes when any call (a settle, a draw) comes back in time", () => {
    const { circuit } = setup();
    circuit.ended("deadline");
    circuit.ended("answered");
    expect(circuit.stalled).toBe(false);
  });
});
