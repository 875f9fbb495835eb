import { describe, expect, it } from "vitest";
import { formatUsd, NANO_PER_USD, parseUsd } from "../../src/billing/money";

describe("parseUsd", () => {
  it.each<[string, bigint]>([
    ["0", 0n],
    ["1", 1_000_000_000n],
    ["1.5", 1_500_000_000n],
    ["0.40", 400_000_000n],
    ["0.000000001", 1n],
    ["12.34", 12_340_000_000n],
    ["12.345678901", 12_345_678_901n],
    [" 2.50 ", 2_500_000_000n],
    ["007.1", 7_100_000_000n],
    ["123456789012345678901", 123_456_789_012_345_678_901_000_000_000n],
  ])("%j -> %s", (text, expected) => {
    expect(parseUsd(text)).toBe(expected);
  });

  it.each([
    "12.3456789012",
    "0.0000000001",
    "-1",
    "-0.5",
    "+1",
    "1e3",
    "1E-9",
    "abc",
    "",
    " ",
    "1.",
    ".5",
    "1,5",
    "1.2.3",
    "0x10",
    "$1",
    "1 000",
    "Infinity",
    "NaN",
  ])("rejects %j", (text) => {
    expect(parseUsd(text)).toBeUndefined();
  });
});

describe("formatUsd", () => {
  it.each<[bigint, string]>([
    [0n, "0.00"],
    [1n, "0.000000001"],
    [10n, "0.00000001"],
    [100_000_000n, "0.10"],
    [120_000_000n, "0.12"],
    [123_000_000n, "0.123"],
    [1_000_000_000n, "1.00"],
    [12_340_000_000n, "12.34"],
    [12_345_678_901n, "12.345678901"],
    [-1n, "-0.000000001"],
    [-12_340_000_000n, "-12.34"],
    [-5_000_000_000n, "-5.00"],
    [123_456_789_000_000_000_000n, "123456789000.00"],
  ])("%s -> %j", (nano, expected) => {
    expect(formatUsd(nano)).toBe(expected);
  });
});

describe("round trips", () => {
  it.each([0n, 1n, 9n, 10n, 999_999_999n, 1_000_000_000n, 1_000_000_001n, 12_340_000_000n, 12_345_678_901n, 10n ** 30n + 7n])(
    "parseUsd(formatUsd(%s)) is the same amount",
    (nano) => {
      expect(parseUsd(formatUsd(nano))).toBe(nano);
    },
  );

  it.each<[string, string]>([
    ["0", "0.00"],
    ["1.5", "1.50"],
    ["0.000000001", "0.000000001"],
    ["12.340", "12.34"],
    ["007.10", "7.10"],
  ])("formatUsd(parseUsd(%j)) normalizes to %j", (text, expected) => {
    expect(formatUsd(parseUsd(text)!)).toBe(expected);
  });

  it("formats negative amounts that parseUsd refuses", () => {
    expect(parseUsd(formatUsd(-NANO_PER_USD))).toBeUndefined();
  });
});
