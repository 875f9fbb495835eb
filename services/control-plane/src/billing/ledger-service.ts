// The only writer of money. Every operation is a PL/pgSQL function
// (prisma/migrations/0002_money_functions), atomic and idempotent by request
// id on PostgreSQL and PGlite alike. Reserve, settle and release, the per
// request calls, go through the group-commit batcher (money-batcher.ts).
// What it takes and answers: money-operations.ts; the reads it inherits: ledger-queries.ts.
import { type DrawEntry, type DrawFields, echo, encodeDrawEntry } from "@gateway/proto";
import { randomUUID } from "node:crypto";
import { type Actor, auditEventRow } from "../changes/audit-log";
import { secondsToNextUtcMidnight, utcDay, type Clock } from "../clock";
import type { Database } from "../database/connect";
import { OUT_OF_RANGE, sqlStateOf } from "../database/sql-state";
import { conflict } from "../errors";
import { LedgerQueries } from "./ledger-queries";
import { MoneyBatcher, type MoneyOperation, type MoneyResult } from "./money-batcher";
import {
  LEASE_SHARE,
  type LeaseInput,
  type ReleaseOutcome,
  type ReserveAnswer,
  type ReserveInput,
  type ReserveOutcome,
  type SettleInput,
  type SettleOutcome,
} from "./money-operations";
import { formatUsd } from "./money";

// The types callers meet in the service's answers and arguments, from the service's own module.
export type { Balance, HoldStatusName, UsageRow } from "./ledger-queries";
export type { CostParts, ReserveAnswer } from "./money-operations";

/** The writer; the ledger's reads (balance, holds, usage, entries, totals) come with it from LedgerQueries. */
export class LedgerService extends LedgerQueries {
  readonly batcher: MoneyBatcher;

  constructor(
    private readonly database: Pick<Database, "prisma" | "query">,
    clock: Clock,
    readonly holdTtlSeconds: number,
  ) {
    super(database, clock);
    this.batcher = new MoneyBatcher(database);
  }

  /** Answers this replica gave (cumulative), for metrics: reserve/settle/release by outcome. A retried call's replay counts again. */
  readonly stats = { holds: new Map<string, number>() };

  /** When a hold (or lease) placed or drawn from now expires. */
  private expiresAt(now: Date): string {
    return new Date(now.getTime() + this.holdTtlSeconds * 1000).toISOString();
  }

  private count(event: string, outcome: string): void {
    const key = `${event}:${outcome}`;
    this.stats.holds.set(key, (this.stats.holds.get(key) ?? 0) + 1);
  }

  async reserve(input: ReserveInput): Promise<ReserveAnswer> {
    const now = this.clock.now();
    const result = await this.batcher.submit(this.reserveOperation(input, now));
    this.count("reserve", result.outcome as string);
    return { ...this.reserveAnswer(result, now), ttlSeconds: this.holdTtlSeconds };
  }

  /**
   * What a Reserve of 1 nano-USD for this project (and key) would answer now, placing nothing: the
   * reserve runs in a block that is always rolled back (gateway_check_spend, migration 0011), so its
   * checks are the Reserve's own. For calls that are free but refused as the paid call would be.
   */
  async checkSpend(projectId: string, keyId?: string): Promise<ReserveAnswer> {
    const now = this.clock.now();
    const check = { requestId: `check:${randomUUID()}`, projectId, amountNano: 1n, model: "", accessPath: "", keyId };
    const [row] = await this.database.query<{ result: MoneyResult }>("SELECT gateway_check_spend($1::jsonb) AS result", [
      JSON.stringify(this.reserveOperation(check, now)),
    ]);
    return { ...this.reserveAnswer(row!.result, now), reservedNano: 0n, ttlSeconds: 0 };
  }

  private reserveOperation(input: ReserveInput, now: Date): MoneyOperation {
    return {
      op: "reserve",
      request_id: input.requestId,
      project_id: input.projectId,
      amount: input.amountNano.toString(),
      min_amount: (input.minAmountNano ?? 0n).toString(),
      day: utcDay(now),
      expires_at: this.expiresAt(now),
      model: input.model,
      access_path: input.accessPath,
      ...(input.keyId ? { key_id: input.keyId } : {}),
    };
  }

  private reserveAnswer(result: MoneyResult, now: Date): Omit<ReserveAnswer, "ttlSeconds"> {
    const outcome = result.outcome as ReserveOutcome;
    return {
      outcome,
      availableNano: BigInt(result.available ?? "0"),
      reservedNano: BigInt(result.reserved ?? "0"),
      retryAfterSeconds: outcome === "spend_cap_exceeded" || outcome === "key_spend_cap_exceeded" ? secondsToNextUtcMidnight(now) : 0,
    };
  }

  async settle(input: SettleInput): Promise<{ outcome: SettleOutcome; debitedNano: bigint }> {
    const result = await this.batcher.submit({
      op: "settle",
      request_id: input.requestId,
      project_id: input.projectId,
      amount: input.amountNano.toString(),
      model: input.model || null,
      access_path: input.accessPath || null,
      input_tokens: input.inputTokens,
      output_tokens: input.outputTokens,
      ...(input.costParts ? { cost_parts: input.costParts } : {}),
    });
    const debitedNano = BigInt(result.debited ?? "0");
    this.count("settle", result.outcome as string);
    return { outcome: result.outcome as SettleOutcome, debitedNano };
  }

  /**
   * Gives a hold's amount back. With `keepNano` > 0, a budget lease only: gives back what it holds above
   * that and stays active for the draws still to come ("reduced").
   */
  async release(requestId: string, projectId: string, keepNano = 0n): Promise<ReleaseOutcome> {
    const result = await this.batcher.submit({
      op: "release",
      request_id: requestId,
      project_id: projectId,
      ...(keepNano > 0n ? { keep: keepNano.toString() } : {}),
    });
    this.count("release", result.outcome as string);
    return result.outcome as ReleaseOutcome;
  }

  /** A budget lease: a hold the data plane sets many requests aside from (docs/money.md). Refused leases leave nothing behind. */
  async lease(input: LeaseInput): Promise<{ granted: boolean; amountNano: bigint; ttlSeconds: number }> {
    const now = this.clock.now();
    const result = await this.batcher.submit({
      op: "lease",
      request_id: input.leaseId,
      project_id: input.projectId,
      amount: input.amountNano.toString(),
      min_amount: input.minAmountNano.toString(),
      share: LEASE_SHARE,
      day: utcDay(now),
      expires_at: this.expiresAt(now),
    });
    const granted = result.outcome === "reserved";
    this.count("lease", granted ? "granted" : "refused");
    return { granted, amountNano: granted ? BigInt(result.reserved ?? "0") : 0n, ttlSeconds: this.holdTtlSeconds };
  }

  /**
   * Debits requests served under leases; each draw extends its lease's expiry, except those applied
   * from a dead data plane's journal (`extendLease: false`: the lease is about to be voided). Results
   * in the order given.
   */
  async draw(
    draws: readonly (DrawFields | DrawEntry)[],
    options: { extendLease?: boolean } = {},
  ): Promise<{ outcome: "settled" | "unknown_lease" | "failed"; debitedNano: bigint }[]> {
    // The draw op moves an active lease's expiry to at least this: the epoch moves nothing.
    const expiresAt = options.extendLease === false ? new Date(0).toISOString() : this.expiresAt(this.clock.now());
    // Each on its own: one that fails (the batcher retries a failed batch op by op) must not fail the others.
    // A checked entry goes as the bytes it came in; fields (an older data plane, the tests) are encoded here.
    const results = await Promise.allSettled(
      draws.map((draw) =>
        this.batcher.submit({
          op: "draw",
          project_id: draw.projectId,
          entry: "text" in draw ? draw.text : encodeDrawEntry(draw),
          expires_at: expiresAt,
        }),
      ),
    );
    return results.map((settledResult) => {
      if (settledResult.status === "rejected") {
        this.count("draw", "failed");
        return { outcome: "failed", debitedNano: 0n };
      }
      const result = settledResult.value;
      const settled = result.outcome === "settled";
      this.count("draw", settled ? "settled" : "unknown_lease");
      return { outcome: settled ? "settled" : "unknown_lease", debitedNano: BigInt(result.debited ?? "0") };
    });
  }

  /**
   * Holds and leases whose requests are still running: each active one now expires the hold TTL from
   * now (never sooner than it did), so the TTL voids only the holds of a data plane that stopped
   * renewing them. Results in the order given: true = renewed, false = closed (not renewed).
   */
  async renew(holds: { requestId: string; projectId: string }[]): Promise<boolean[]> {
    const expiresAt = this.expiresAt(this.clock.now());
    const results = await Promise.allSettled(
      holds.map((hold) =>
        this.batcher.submit({ op: "renew", request_id: hold.requestId, project_id: hold.projectId, expires_at: expiresAt }),
      ),
    );
    // Renewals are idempotent: one that failed fails the call, and the data plane sends them all again.
    const failed = results.find((result): result is PromiseRejectedResult => result.status === "rejected");
    if (failed) throw failed.reason;
    return results.map((result) => {
      const renewed = (result as PromiseFulfilledResult<{ outcome: string }>).value.outcome === "renewed";
      this.count("renew", renewed ? "renewed" : "closed");
      return renewed;
    });
  }

  /** Voids up to `limit` active holds past their TTL at `at` (one short transaction); returns how many. */
  async expireHolds(limit = 100, at = this.clock.now()): Promise<number> {
    const rows = await this.prisma.$queryRaw<{ count: number }[]>`
      SELECT gateway_expire_holds(${at.toISOString()}::timestamptz, ${limit}::integer) AS count`;
    return Number(rows[0]!.count);
  }

  async topUp(
    projectId: string,
    amountNano: bigint,
    idempotencyKey: string,
    actor: Actor,
  ): Promise<{ entryId: bigint; amountNano: bigint; replayed: boolean }> {
    await this.requireProject(projectId);
    // The credit and its audit event in one statement (the project's row lock is held no longer than the credit
    // alone); a replay credits nothing and records nothing.
    const entry = auditEventRow({ kind: "topup", projectId, amountNano: amountNano.toString() }, actor);
    const rows = await this.prisma.$queryRaw<{ r_entry_id: bigint; r_amount: bigint; r_replayed: boolean }[]>`
      WITH credited AS (
        SELECT * FROM gateway_topup(${projectId}, ${amountNano}::bigint, ${idempotencyKey}, ${utcDay(this.clock.now())}::date)
      ), recorded AS (
        INSERT INTO audit_events (kind, actor, payload)
        SELECT ${entry.kind}, ${entry.actor}, ${JSON.stringify(entry.payload)}::jsonb FROM credited WHERE NOT r_replayed
      )
      SELECT * FROM credited`.catch((error: unknown) => {
      // The balance is a bigint: a top-up past it fails in the database (was a 500) and credits nothing.
      if (sqlStateOf(error) === OUT_OF_RANGE)
        throw conflict(`a top-up of $${formatUsd(amountNano)} would take project ${echo(projectId)}'s balance past what the ledger holds`);
      throw error;
    });
    const row = rows[0]!;
    // A key names one top-up: the same key with another amount is a mistake to report, not a replay to answer.
    if (row.r_replayed && BigInt(row.r_amount) !== amountNano)
      throw conflict(
        `idempotency key ${echo(idempotencyKey)} was used for a top-up of $${formatUsd(BigInt(row.r_amount))} to project ${echo(projectId)}; this one is $${formatUsd(amountNano)}`,
      );
    return { entryId: BigInt(row.r_entry_id), amountNano: BigInt(row.r_amount), replayed: row.r_replayed };
  }
}
