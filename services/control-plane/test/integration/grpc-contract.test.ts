// The control plane's gRPC contract, called as a data plane calls it: a real
// server on a free port, the generated client, PGlite in a fresh directory.
import * as grpc from "@grpc/grpc-js";
import {
  AUTH_METADATA_KEY,
  bearer,
  ControlPlaneClientConstructor,
  type DrawFields,
  ERROR_CODE_METADATA_KEY,
  type ControlPlaneClient,
  encodeDrawEntry,
} from "@gateway/proto";
import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scratchPgliteDir } from "../../../../deploy/test/pglite-template";
import { parseControlPlaneConfig } from "../../src/config";
import { startControlPlane, type RunningControlPlane } from "../../src/control-plane";
import { ADMIN_TOKEN } from "../../src/changes/audit-log";

const TOKEN = "contract-test-token";

describe("control-plane gRPC contract", () => {
  let dataDir: string;
  let controlPlane: RunningControlPlane;
  let client: ControlPlaneClient;
  let projectId: string;
  let key: string;

  function call<Request, Response>(method: string, request: Request, token = TOKEN): Promise<Response> {
    const metadata = new grpc.Metadata();
    metadata.set(AUTH_METADATA_KEY, bearer(token));
    return new Promise((resolve, reject) => {
      (client as unknown as Record<string, (r: Request, m: grpc.Metadata, cb: (e: grpc.ServiceError | null, v: Response) => void) => void>)[
        method
      ]!(request, metadata, (error, value) => (error ? reject(error) : resolve(value)));
    });
  }

  const reserve = (requestId: string, amountNano: bigint) =>
    call<object, { outcome: string; retryAfterSeconds: number; availableNano: string }>("reserve", {
      requestId,
      projectId,
      amountNano: amountNano.toString(),
      model: "m",
      accessPath: "p",
    });
  const settle = (requestId: string, amountNano: bigint) =>
    call<object, { outcome: string; debitedNano: string }>("settle", {
      requestId,
      projectId,
      amountNano: amountNano.toString(),
      model: "m",
      accessPath: "p",
      inputTokens: 1,
      outputTokens: 2,
    });
  const release = (requestId: string) => call<object, { outcome: string }>("release", { requestId, projectId });

  beforeAll(async () => {
    dataDir = scratchPgliteDir("contract-");
    controlPlane = await startControlPlane(
      parseControlPlaneConfig({
        GATEWAY_DATA_DIR: dataDir,
        GATEWAY_ALLOW_WEAK_TOKENS: "true", // short test tokens
        GATEWAY_INTERNAL_TOKEN: TOKEN,
        GATEWAY_ADMIN_TOKEN: "admin",
        CONTROL_PLANE_GRPC_PORT: "0",
        CONTROL_PLANE_ADMIN_PORT: "0",
        METRICS_PORT: "0",
        HOLD_TTL_SECONDS: "1",
        HOLD_SWEEP_INTERVAL_MS: "100000",
        LOG_LEVEL: "silent",
      }),
    );
    client = new ControlPlaneClientConstructor(controlPlane.grpcAddress, grpc.credentials.createInsecure());
    const { services } = controlPlane;
    projectId = (await services.projects.create({ name: "contract" }, ADMIN_TOKEN)).id;
    key = (await services.keys.issue(projectId, { name: "k" }, ADMIN_TOKEN)).key;
    await services.ledger.topUp(projectId, 1_000_000n, "seed", ADMIN_TOKEN);
  });

  afterAll(async () => {
    client?.close();
    await controlPlane?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("refuses calls without the shared token", async () => {
    const error = (await call("validateKey", { key }, "wrong").catch((caught: unknown) => caught)) as grpc.ServiceError;
    expect(error.code).toBe(grpc.status.UNAUTHENTICATED);
  });

  it("validates a key and answers unknown or malformed keys alike", async () => {
    expect(await call("validateKey", { key })).toMatchObject({ valid: true, projectId, cacheTtlSeconds: 30 });
    const tampered = `${key.slice(0, -1)}${key.endsWith("a") ? "b" : "a"}`;
    for (const candidate of [tampered, "garbage", `sk_${projectId}_short`]) {
      expect(await call("validateKey", { key: candidate })).toMatchObject({ valid: false, projectId: "", keyId: "" });
    }
  });

  it("reserves, settles exactly once, and replays return the first answer", async () => {
    expect((await reserve("r1", 400_000n)).outcome).toBe("RESERVED");
    expect((await reserve("r1", 400_000n)).outcome).toBe("RESERVED"); // replay: no second hold
    expect((await controlPlane.services.ledger.balance(projectId)).heldNano).toBe(400_000n);
    expect(await settle("r1", 123n)).toEqual({ outcome: "SETTLED", debitedNano: "123" });
    expect(await settle("r1", 999n)).toEqual({ outcome: "SETTLED", debitedNano: "123" }); // replay keeps the first amount
    expect(await release("r1")).toEqual({ outcome: "ALREADY_SETTLED" });
    const balance = await controlPlane.services.ledger.balance(projectId);
    expect(balance.balanceNano).toBe(1_000_000n - 123n);
    expect(balance.heldNano).toBe(0n);
  });

  it("releases once; a settle after the release debits nothing", async () => {
    expect((await reserve("r2", 10_000n)).outcome).toBe("RESERVED");
    expect(await release("r2")).toEqual({ outcome: "RELEASED" });
    expect(await release("r2")).toEqual({ outcome: "RELEASED" });
    expect(await settle("r2", 50n)).toEqual({ outcome: "ALREADY_RELEASED", debitedNano: "0" });
    expect(await settle("never-reserved", 50n)).toEqual({ outcome: "UNKNOWN_REQUEST", debitedNano: "0" });
  });

  it("refuses a hold the balance cannot cover, and replays the refusal", async () => {
    const available = (await controlPlane.services.ledger.balance(projectId)).availableNano;
    const refused = await reserve("r3", available + 1n);
    expect(refused.outcome).toBe("INSUFFICIENT_CREDITS");
    expect(BigInt(refused.availableNano)).toBe(available);
    expect((await reserve("r4", available)).outcome).toBe("RESERVED"); // exactly the balance fits
    expect((await reserve("r3", 1n)).outcome).toBe("INSUFFICIENT_CREDITS"); // first answer, though the amount differs
    await release("r4");
  });

  it("refuses a hold over the daily cap with the seconds to midnight", async () => {
    await controlPlane.services.projects.setLimits(projectId, { dailyCapNano: 200n }, ADMIN_TOKEN);
    const refused = await reserve("r5", 300n); // 123 already spent today
    expect(refused.outcome).toBe("SPEND_CAP_EXCEEDED");
    expect(refused.retryAfterSeconds).toBeGreaterThan(0);
    expect(refused.retryAfterSeconds).toBeLessThanOrEqual(86_400);
    expect((await reserve("r6", 77n)).outcome).toBe("RESERVED"); // 123 + 77 = 200 fits exactly
    expect((await reserve("r7", 1n)).outcome).toBe("SPEND_CAP_EXCEEDED");
    await release("r6");
    await controlPlane.services.projects.setLimits(projectId, { dailyCapNano: null }, ADMIN_TOKEN);
  });

  it("answers CheckSpend as a Reserve of 1 nano-USD would, and places nothing (issue 33, item 5)", async () => {
    const check = (project: string) =>
      call<object, { outcome: string; retryAfterSeconds: number; availableNano: string; reservedNano: string }>("checkSpend", {
        projectId: project,
      });
    const { services } = controlPlane;
    const broke = (await services.projects.create({ name: "broke" }, ADMIN_TOKEN)).id;
    const holdsOf = async (project: string) =>
      (await controlPlane.database.query("SELECT 1 FROM holds WHERE project_id = $1", [project])).length;

    expect(await check(broke)).toMatchObject({ outcome: "INSUFFICIENT_CREDITS", reservedNano: "0" });
    await services.ledger.topUp(broke, 100n, "seed", ADMIN_TOKEN);
    expect(await check(broke)).toMatchObject({ outcome: "RESERVED", availableNano: "99", reservedNano: "0" });
    expect(await check(broke)).toMatchObject({ outcome: "RESERVED" }); // again: nothing was set aside by the first
    expect(await holdsOf(broke)).toBe(0);
    expect((await services.ledger.balance(broke)).heldNano).toBe(0n);

    // Everything held by a request in flight: nothing left to spend.
    const held = await call<object, { outcome: string }>("reserve", {
      requestId: "c1",
      projectId: broke,
      amountNano: "100",
      model: "m",
      accessPath: "p",
    });
    expect(held.outcome).toBe("RESERVED");
    expect(await check(broke)).toMatchObject({ outcome: "INSUFFICIENT_CREDITS" });
    await call("settle", {
      requestId: "c1",
      projectId: broke,
      amountNano: "40",
      model: "m",
      accessPath: "p",
      inputTokens: 1,
      outputTokens: 1,
    });

    // The daily cap reached: 40 spent today of a 40 cap.
    await services.projects.setLimits(broke, { dailyCapNano: 40n }, ADMIN_TOKEN);
    const capped = await check(broke);
    expect(capped.outcome).toBe("SPEND_CAP_EXCEEDED");
    expect(capped.retryAfterSeconds).toBeGreaterThan(0);
    await services.projects.setLimits(broke, { dailyCapNano: null }, ADMIN_TOKEN);
    expect(await check(broke)).toMatchObject({ outcome: "RESERVED", availableNano: "59" });
    expect(await holdsOf(broke)).toBe(1); // c1's, settled

    expect(await check("no-such-project")).toMatchObject({ outcome: "UNKNOWN_PROJECT" });
  });

  it("expires holds past their TTL, counts them, and still debits a late settle", async () => {
    expect((await reserve("r8", 5_000n)).outcome).toBe("RESERVED");
    await new Promise((resolve) => setTimeout(resolve, 1100)); // HOLD_TTL_SECONDS=1
    expect(await controlPlane.services.sweeper.sweep()).toBe(1);
    expect(controlPlane.services.sweeper.expiredTotal).toBe(1);
    const metrics = await (await fetch(`${controlPlane.metricsUrl}/metrics`)).text();
    expect(metrics).toMatch(/^gateway_holds_expired_total 1$/m);
    const before = await controlPlane.services.ledger.balance(projectId);
    expect(before.heldNano).toBe(0n);
    expect(await settle("r8", 40n)).toEqual({ outcome: "SETTLED", debitedNano: "40" });
    expect((await controlPlane.services.ledger.balance(projectId)).balanceNano).toBe(before.balanceNano - 40n);
  });

  it("debits at most the hold when the actual cost exceeds it, and records the rest as unbilled", async () => {
    const before = await controlPlane.services.ledger.balance(projectId);
    expect((await reserve("over1", 1_000n)).outcome).toBe("RESERVED");
    expect(await settle("over1", 5_000n)).toEqual({ outcome: "SETTLED", debitedNano: "1000" });
    const after = await controlPlane.services.ledger.balance(projectId);
    expect(after.balanceNano).toBe(before.balanceNano - 1_000n);
    const hold = await controlPlane.database.prisma.hold.findUnique({ where: { requestId: "over1" } });
    expect([hold!.debitedNano, hold!.unbilledNano]).toEqual([1_000n, 4_000n]);
  });

  it("debits a settle arriving after expiry only from what is still free: the balance never goes negative", async () => {
    expect((await reserve("late1", 2_000n)).outcome).toBe("RESERVED");
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect(await controlPlane.services.sweeper.sweep()).toBe(1);
    const free = (await controlPlane.services.ledger.balance(projectId)).availableNano;
    expect((await reserve("late2", free)).outcome).toBe("RESERVED"); // another request takes everything
    expect(await settle("late1", 700n)).toEqual({ outcome: "SETTLED", debitedNano: "0" });
    const balance = await controlPlane.services.ledger.balance(projectId);
    expect(balance.availableNano).toBe(0n);
    expect(balance.balanceNano).toBeGreaterThanOrEqual(balance.heldNano);
    await release("late2");
  });

  it("debits once when settles and releases arrive together, replayed and out of order", async () => {
    const before = (await controlPlane.services.ledger.balance(projectId)).balanceNano;
    // A release and a settle that arrive before their reserve find nothing to act on.
    expect(await settle("race1", 10n)).toEqual({ outcome: "UNKNOWN_REQUEST", debitedNano: "0" });
    expect((await reserve("race1", 1_000n)).outcome).toBe("RESERVED");
    // Ten settles with different amounts and five releases, all at once.
    const answers = await Promise.all([
      ...Array.from({ length: 10 }, (_, index) => settle("race1", BigInt(100 + index))),
      ...Array.from({ length: 5 }, () => release("race1")),
    ]);
    const settles = answers.slice(0, 10) as { outcome: string; debitedNano: string }[];
    const releases = answers.slice(10) as { outcome: string }[];
    const debits = (await controlPlane.database.prisma.ledgerEntry.findMany({ where: { requestId: "race1" } })).map(
      (entry) => entry.amountNano,
    );
    const after = (await controlPlane.services.ledger.balance(projectId)).balanceNano;
    if (settles.some((answer) => answer.outcome === "SETTLED")) {
      // The first to land won; every settle reports that one debit, every release defers to it.
      expect(debits).toHaveLength(1);
      expect(new Set(settles.map((answer) => answer.debitedNano))).toEqual(new Set([String(-debits[0]!)]));
      expect(releases.every((answer) => answer.outcome === "ALREADY_SETTLED")).toBe(true);
      expect(after).toBe(before + debits[0]!);
    } else {
      expect(debits).toHaveLength(0);
      expect(settles.every((answer) => answer.outcome === "ALREADY_RELEASED")).toBe(true);
      expect(after).toBe(before);
    }
    expect((await controlPlane.services.ledger.balance(projectId)).heldNano).toBe(0n);
  });

  it("holds what fits, down to a minimum, when the caller accepts a smaller answer", async () => {
    const available = (await controlPlane.services.ledger.balance(projectId)).availableNano;
    const partial = await call<object, { outcome: string; reservedNano: string }>("reserve", {
      requestId: "min1",
      projectId,
      amountNano: (available * 2n).toString(),
      minAmountNano: "10",
      model: "m",
      accessPath: "p",
    });
    expect(partial).toMatchObject({ outcome: "RESERVED", reservedNano: available.toString() });
    expect((await controlPlane.services.ledger.balance(projectId)).availableNano).toBe(0n);
    const none = await call<object, { outcome: string }>("reserve", {
      requestId: "min2",
      projectId,
      amountNano: "100",
      minAmountNano: "10",
      model: "m",
      accessPath: "p",
    });
    expect(none.outcome).toBe("INSUFFICIENT_CREDITS"); // not even the minimum fits
    await release("min1");
  });

  it("refuses negative amounts at the boundary", async () => {
    const error = (await reserve("neg1", -5n).catch((caught: unknown) => caught)) as grpc.ServiceError;
    expect(error.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(error.metadata.get(ERROR_CODE_METADATA_KEY)).toEqual(["invalid_request"]);
    const settleError = (await settle("r1", -5n).catch((caught: unknown) => caught)) as grpc.ServiceError;
    expect(settleError.code).toBe(grpc.status.INVALID_ARGUMENT);
    // A cost part beyond int64 would fail every roll-up of the usage rollups: refused, nothing stored.
    const part = (units: string, nano: string) =>
      call<object, { outcome: string }>("settle", {
        requestId: "r-part",
        projectId,
        amountNano: "5",
        model: "m",
        accessPath: "p",
        inputTokens: 1,
        outputTokens: 2,
        costParts: [{ component: "input", units, nano }],
      }).catch((caught: unknown) => caught as grpc.ServiceError);
    expect(((await part("1", "9223372036854775808")) as grpc.ServiceError).code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(((await part("9223372036854775807", "1")) as grpc.ServiceError).code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(await controlPlane.services.ledger.ledger(projectId, 1, { requestId: "r-part" })).toEqual([]);
  });

  it("streams the catalogue first on Subscribe", async () => {
    const metadata = new grpc.Metadata();
    metadata.set(AUTH_METADATA_KEY, bearer(TOKEN));
    const stream = client.subscribe({ replicaId: "contract" }, metadata);
    stream.on("error", () => {}); // the cancel below ends the call with CANCELLED
    const first = await new Promise<{ catalogue?: { models: unknown[] } }>((resolve) => stream.once("data", resolve));
    stream.cancel();
    expect(first.catalogue?.models.length).toBeGreaterThan(0);
  });
  it("leases: grants a share of what is available, draws once per request (a bad draw refused alone), reduces to what is kept, and a released lease stays closed", async () => {
    const lease = (leaseId: string, amountNano: bigint, minAmountNano = 1n) =>
      call<object, { granted: boolean; amountNano: string; ttlSeconds: number }>("lease", {
        leaseId,
        projectId,
        amountNano: amountNano.toString(),
        minAmountNano: minAmountNano.toString(),
      });
    const draw = (draws: { requestId: string; leaseId: string; amountNano: string; holdNano: string }[]) =>
      call<object, { results: { outcome: string; debitedNano: string }[] }>("draw", {
        draws: draws.map((entry) => ({ ...entry, projectId, model: "m", accessPath: "p", inputTokens: 1, outputTokens: 1 })),
      });
    const available = (await controlPlane.services.ledger.balance(projectId)).availableNano;
    const granted = await lease("lease-1", available); // asks for everything
    expect(granted.granted).toBe(true);
    expect(BigInt(granted.amountNano)).toBe(available / 8n); // gets an eighth
    expect(await lease("lease-1", 10n)).toMatchObject({ granted: true, amountNano: granted.amountNano }); // a replay
    expect((await lease("lease-big-min", available, available)).granted).toBe(false); // a minimum above the share
    expect(await controlPlane.services.ledger.holds(projectId, "refused", 10)).not.toContainEqual(
      expect.objectContaining({ requestId: "lease-big-min" }),
    );

    const answers = await draw([
      { requestId: "d1", leaseId: "lease-1", amountNano: "300", holdNano: "500" },
      { requestId: "d2", leaseId: "lease-1", amountNano: "-1", holdNano: "500" },
      { requestId: "d3", leaseId: "no-such-lease", amountNano: "10", holdNano: "500" },
      { requestId: "d4", leaseId: "lease-1", amountNano: "900", holdNano: "500" },
    ]);
    expect(answers.results).toEqual([
      { outcome: "SETTLED", debitedNano: "300" },
      { outcome: "INVALID", debitedNano: "0" },
      { outcome: "UNKNOWN_LEASE", debitedNano: "0" },
      { outcome: "SETTLED", debitedNano: "500" }, // at most what the request set aside
    ]);
    expect((await draw([{ requestId: "d1", leaseId: "lease-1", amountNano: "999", holdNano: "999" }])).results).toEqual([
      { outcome: "SETTLED", debitedNano: "300" },
    ]);
    expect((await settle("lease-1", 5n)).outcome).toBe("UNKNOWN_REQUEST"); // a lease is not settled like a request

    // A retired lease keeps only what its requests in flight set aside; a replay or a larger keep never raises it.
    const reduce = (requestId: string, keepNano: bigint) =>
      call<object, { outcome: string }>("release", { requestId, projectId, keepNano: keepNano.toString() });
    expect((await reduce("lease-1", 2_000n)).outcome).toBe("REDUCED");
    expect((await controlPlane.services.ledger.balance(projectId)).heldNano).toBe(2_000n);
    expect((await reduce("lease-1", 5_000n)).outcome).toBe("REDUCED");
    expect((await controlPlane.services.ledger.balance(projectId)).heldNano).toBe(2_000n);
    expect((await reduce("r-no-lease", 5n)).outcome).toBe("UNKNOWN_REQUEST");
    // Only a lease is reduced: an ordinary hold is left as it is; a negative keep is refused.
    expect((await reserve("r-not-a-lease", 700n)).outcome).toBe("RESERVED");
    expect((await reduce("r-not-a-lease", 5n)).outcome).toBe("UNKNOWN_REQUEST");
    expect((await controlPlane.services.ledger.balance(projectId)).heldNano).toBe(2_700n);
    expect((await release("r-not-a-lease")).outcome).toBe("RELEASED");
    const negative = (await reduce("lease-1", -5n).catch((caught: unknown) => caught)) as grpc.ServiceError;
    expect(negative.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect((await draw([{ requestId: "d6", leaseId: "lease-1", amountNano: "400", holdNano: "600" }])).results).toEqual([
      { outcome: "SETTLED", debitedNano: "400" },
    ]);

    const before = await controlPlane.services.ledger.balance(projectId);
    expect(before.heldNano).toBe(1_600n);
    expect((await release("lease-1")).outcome).toBe("RELEASED");
    const after = await controlPlane.services.ledger.balance(projectId);
    expect(after.heldNano).toBe(0n);
    expect(after.balanceNano).toBe(before.balanceNano);
    expect((await lease("lease-1", 10n)).granted).toBe(false); // a released lease's replay is not a grant
    expect((await reduce("lease-1", 5n)).outcome).toBe("RELEASED"); // a late reduce changes nothing
    // A draw after the release still bills its request (as a late settle would).
    expect((await draw([{ requestId: "d5", leaseId: "lease-1", amountNano: "70", holdNano: "100" }])).results).toEqual([
      { outcome: "SETTLED", debitedNano: "70" },
    ]);
    expect((await controlPlane.services.ledger.balance(projectId)).balanceNano).toBe(after.balanceNano - 70n);
  });

  it("takes a draw as its entry's bytes (a lease says so), debits exactly what they say, and refuses alone an entry that does not check", async () => {
    const granted = await call<object, { granted: boolean; drawEntries: boolean }>("lease", {
      leaseId: "lease-entries",
      projectId,
      amountNano: "100000",
      minAmountNano: "1",
    });
    expect(granted).toMatchObject({ granted: true, drawEntries: true });
    const fields = (requestId: string, amountNano: bigint): DrawFields => ({
      requestId,
      leaseId: "lease-entries",
      projectId,
      amountNano,
      holdNano: 900n,
      model: "acme/m",
      accessPath: "openai",
      inputTokens: 12,
      outputTokens: 34,
      costParts: [
        { component: "input", units: 12, nano: amountNano - 100n },
        { component: "output", units: 34, nano: 100n },
      ],
      keyId: "key-entries",
    });
    const entry = (text: string) => ({ entry: Buffer.from(text) });
    const withExpiry = encodeDrawEntry(fields("e-expiry", 500n)).replace(
      '{"op":"draw",',
      '{"op":"draw","expires_at":"2999-01-01T00:00:00Z",',
    );
    const answers = await call<object, { results: { outcome: string; debitedNano: string }[] }>("draw", {
      draws: [
        entry(encodeDrawEntry(fields("e-1", 700n))),
        entry(withExpiry), // an expiry of its own: the lease's is the control plane's to set
        entry(`${encodeDrawEntry(fields("e-2", 300n)).slice(0, -1)},"op":"settle"}`),
        entry(encodeDrawEntry(fields("e-3", 2_000n))), // above its hold: at most the hold
        // An older data plane's fields, in the same call.
        { ...fields("e-4", 250n), amountNano: "250", holdNano: "900", costParts: [{ component: "input", units: 12, nano: "250" }] },
      ],
    });
    expect(answers.results).toEqual([
      { outcome: "SETTLED", debitedNano: "700" },
      { outcome: "INVALID", debitedNano: "0" },
      { outcome: "INVALID", debitedNano: "0" },
      { outcome: "SETTLED", debitedNano: "900" },
      { outcome: "SETTLED", debitedNano: "250" },
    ]);
    const [debit] = (await controlPlane.services.ledger.ledger(projectId, 1, { requestId: "e-1" })) as Record<string, unknown>[];
    expect(debit).toMatchObject({
      kind: "debit",
      amountNano: -700n,
      model: "acme/m",
      accessPath: "openai",
      inputTokens: 12,
      outputTokens: 34,
      keyId: "key-entries",
    });
    expect(debit!.costParts).toEqual({ input: { units: 12, nano: "600" }, output: { units: 34, nano: "100" } });
    expect(await controlPlane.services.ledger.ledger(projectId, 1, { requestId: "e-expiry" })).toEqual([]);
    expect((await call<object, { outcome: string }>("release", { requestId: "lease-entries", projectId, keepNano: "0" })).outcome).toBe(
      "RELEASED",
    );
  });

  it("renews active holds and leases to the TTL from now; a settled, released or unknown hold is not renewed", async () => {
    const renew = (requestIds: string[]) =>
      call<object, { active: boolean[]; ttlSeconds: number }>("renew", {
        holds: requestIds.map((requestId) => ({ requestId, projectId })),
      });
    const reserved = await call<object, { outcome: string; ttlSeconds: number }>("reserve", {
      requestId: "r-renew",
      projectId,
      amountNano: "500",
      model: "m",
      accessPath: "p",
    });
    expect(reserved).toMatchObject({ outcome: "RESERVED", ttlSeconds: 1 }); // the data plane learns the TTL it renews within
    expect(
      (await call<object, { granted: boolean }>("lease", { leaseId: "lease-renew", projectId, amountNano: "800", minAmountNano: "1" }))
        .granted,
    ).toBe(true);
    const expiredBefore = controlPlane.services.sweeper.expiredTotal;
    for (let round = 0; round < 3; round++) {
      await new Promise((resolve) => setTimeout(resolve, 600)); // HOLD_TTL_SECONDS=1: renewed every 0.6 s, they outlive it
      expect(await renew(["r-renew", "lease-renew", "r1", "r2", "never-reserved"])).toEqual({
        active: [true, true, false, false, false],
        ttlSeconds: 1,
      });
    }
    await controlPlane.services.sweeper.sweep();
    expect(controlPlane.services.sweeper.expiredTotal).toBe(expiredBefore);
    const active = (await controlPlane.services.ledger.holds(projectId, "active", 100)).map((hold) => hold.requestId);
    expect(active).toEqual(expect.arrayContaining(["r-renew", "lease-renew"]));
    // Not renewed any more: the TTL catches them.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect(await controlPlane.services.sweeper.sweep()).toBe(2);
    expect(await renew(["r-renew", "lease-renew"])).toEqual({ active: [false, false], ttlSeconds: 1 });
  });
});
