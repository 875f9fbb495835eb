// The GatewayError a call throws (failing the test when it throws nothing or something else).
import { expect } from "vitest";
import { GatewayError } from "../../src/errors";

export function thrown(fn: () => unknown): GatewayError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayError);
    return error as GatewayError;
  }
  throw new Error("expected a GatewayError, nothing was thrown");
}
