import { describe, expect, it } from "vitest";
import { failWith } from "../../src/app/plugins/hook-failure";

describe("failWith", () => {
  it("fails the request with the rejection's error", () => {
    const seen: unknown[] = [];
    const error = new Error("control plane down");
    failWith((value) => seen.push(value))(error);
    expect(seen).toEqual([error]);
  });

  it("fails it too when the promise was rejected without an Error (done(undefined) would let the request through)", () => {
    const seen: unknown[] = [];
    failWith((value) => seen.push(value))(undefined);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toBeInstanceOf(Error);
  });
});
