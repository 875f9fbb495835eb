// The one error table: docs/errors.md lists every code with the table's own
// status, type, retryable flag and gRPC status, and GatewayError renders rows.
import { readFileSync } from "node:fs";
import path from "node:path";
import { status as grpcStatus } from "@grpc/grpc-js";
import { describe, expect, it } from "vitest";
import { ERROR_TABLE, type ErrorCode, GatewayError } from "../src/errors";

const doc = readFileSync(path.resolve(import.meta.dirname, "../../docs/errors.md"), "utf8");
const documented = new Map(
  [...doc.matchAll(/^\| `([a-z_]+)` \| (\d+|\dxx) \| `([a-z_]+)` \| (yes|no) \| `([A-Z_]+)` \|/gm)].map((match) => [
    match[1]!,
    { status: match[2]!, type: match[3]!, retryable: match[4] === "yes", grpc: match[5]! },
  ]),
);

describe("the error table", () => {
  it("is documented row for row in docs/errors.md", () => {
    expect([...documented.keys()].sort()).toEqual(Object.keys(ERROR_TABLE).sort());
    for (const [code, row] of Object.entries(ERROR_TABLE)) {
      const { status, ...rest } = documented.get(code)!;
      expect({ code, ...rest }).toEqual({ code, type: row.type, retryable: row.retryable, grpc: grpcStatus[row.grpc] });
      // An upstream failure keeps the upstream's status: documented as its class (4xx, 5xx) or its usual one.
      const statuses = row.wireCode === "status" ? [String(row.status), `${String(row.status)[0]}xx`] : [String(row.status)];
      expect(statuses, code).toContain(status);
    }
  });

  it("renders a code as its row, and an upstream failure with the upstream's status as its wire code", () => {
    const credits = new GatewayError("insufficient_credits", "no money");
    expect([credits.status, credits.type, credits.code, credits.retryable, credits.grpcStatus]).toEqual([
      402,
      "billing_error",
      "insufficient_credits",
      false,
      grpcStatus.FAILED_PRECONDITION,
    ]);
    // OpenAI's errors always carry `param`: null when no request field is at fault.
    expect(credits.toBody()).toEqual({ error: { type: "billing_error", code: "insufficient_credits", message: "no money", param: null } });
    expect(new GatewayError("invalid_body", "bad", { param: "messages" }).toBody().error.param).toBe("messages");
    const upstream = new GatewayError("upstream_failed", "failed", { status: 503 });
    expect([upstream.status, upstream.code, upstream.retryable]).toEqual([503, 503, true]);
  });

  it("ignores a status given for a code whose wire code is its name", () => {
    const code: ErrorCode = "internal_error";
    expect(new GatewayError(code, "bug", { status: 418 }).status).toBe(500);
  });
});
