import { describe, expect, it } from "vitest";
import { offsetClock, secondsToNextUtcMidnight, utcDay } from "../../src/clock";

describe("utcDay", () => {
  it.each<[string, string]>([
    ["2026-03-14T00:00:00.000Z", "2026-03-14"],
    ["2026-03-14T23:59:59.999Z", "2026-03-14"],
    ["2026-03-14T23:30:00.000-02:00", "2026-03-15"],
    ["2026-03-15T01:00:00.000+02:00", "2026-03-14"],
    ["2024-02-29T12:00:00.000Z", "2024-02-29"],
    ["2025-12-31T23:59:59.999Z", "2025-12-31"],
  ])("%s -> %s", (moment, day) => {
    expect(utcDay(new Date(moment))).toBe(day);
  });
});

describe("secondsToNextUtcMidnight", () => {
  it.each<[string, number]>([
    ["2026-03-14T23:59:59.500Z", 1],
    ["2026-03-14T23:59:59.999Z", 1],
    ["2026-03-14T23:59:59.000Z", 1],
    ["2026-03-14T23:59:58.000Z", 2],
    ["2026-03-14T00:00:00.000Z", 86_400],
    ["2026-03-14T00:00:00.001Z", 86_400],
    ["2026-03-14T00:00:01.000Z", 86_399],
    ["2026-03-14T12:00:00.000Z", 43_200],
    ["2026-03-14T12:00:00.000+05:00", 61_200],
    ["2025-12-31T23:00:00.000Z", 3_600],
    ["2024-02-28T12:00:00.000Z", 43_200],
  ])("%s -> %d", (moment, seconds) => {
    expect(secondsToNextUtcMidnight(new Date(moment))).toBe(seconds);
  });
});

describe("offsetClock", () => {
  it("shifts now by the offset", () => {
    const before = Date.now();
    const now = offsetClock(86_400_000).now().getTime();
    const after = Date.now();
    expect(now).toBeGreaterThanOrEqual(before + 86_400_000);
    expect(now).toBeLessThanOrEqual(after + 86_400_000);
  });
});
