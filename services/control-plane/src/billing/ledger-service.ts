// The only writer of money. Every operation is a PL/pgSQL function
// (prisma/migrations/0002_money_functions), atomic and idempotent by request
// id on PostgreSQL and PGlite alike. Reserve, settle and release, the per
// request calls, go through the group-commit batcher (money-batcher.ts).
import type { PrismaClient } from "../generated/prisma/client";
import { secondsToNextUtcMidnight, utcDay, type Clock } from "../clock";
import { type Actor, auditEventRow } from "../changes/audit-log";
import { conflict, invalidRequest, notFound } from "../errors";
import { formatUsd } from "./money";
import type { Database } from "../database/connect";
import { MoneyBatcher, type MoneyOperation, type MoneyResult } from "./money-batcher";
import { OUT_OF_RANGE, sqlStateOf } from "../database/sql-state";
import { echo } from "@gateway/proto";
import { randomUUID } from "node:crypto";

export type ReserveOutcome =
  | "reserved"
  | "insufficient_credits"
  | "spend_cap_exceeded"
  | "unknown_project"
  | "key_budget_exceeded"
  | "key_spend_cap_exceeded";
/** A Reserve's answer (and a CheckSpend's, which reserves nothing). */
export interface ReserveAnswer {
  outcome: ReserveOutcome;
  availableNano: bigint;
  reservedNano: bigint;
  retryAfterSeconds: number;
  ttlSeconds: number;
}

export type SettleOutcome = "settled" | "already_released" | "unknown_request";
export type ReleaseOutcome = "released" | "already_settled" | "unknown_request" | "reduced";

export interface ReserveInput {
  requestId: string;
  projectId: string;
  amountNano: bigint;
  /** When > 0 and amountNano does not fit, hold what fits if it is at least this much. */
  minAmountNano?: bigint;
  model: string;
  accessPath: string;
  /** The request's API key: its own budget and daily cap bound the hold too (docs/keys.md). */
  keyId?: string;
}

/** A debit's cost by component: {component: {units, nano}} (the ledger's cost_parts, docs/money.md). */
export type CostParts = Record<string, { units: number; nano: string }>;

export interface SettleInput {
  requestId: string;
  projectId: string;
  amountNano: bigint;
  model: string;
  accessPath: string;
  inputTokens: number;
  outputTokens: number;
  costParts?: CostParts;
}

export interface LeaseInput {
  leaseId: string;
  projectId: string;
  amountNano: bigint;
  minAmountNano: bigint;
}

export interface DrawInput {
  requestId: string;
  leaseId: string;
  projectId: string;
  amountNano: bigint;
  holdNano: bigint;
  model: string;
  accessPath: string;
  inputTokens: number;
  outputTokens: number;
  costParts?: CostParts;
  /** The request's API key, recorded on its debit. */
  keyId?: string;
}

/** A lease holds at most this share of what a project can spend (1/8): a busy data plane never takes the whole balance. */
export const LEASE_SHARE = 8;

export interface UsageRow {
  day: string;
  model: string;
  requests: number;
  inputTokens: number;
  outputTokens: number;
  costNano: bigint;
  /** The cost split by component (input, cached_input, cache_write_5m, output, reasoning, image...), from debits that carry it. */
  components: Record<string, { units: number; costNano: bigint }>;
}

/** What a ledger listing keeps: entries of a kind, a request, a key, UTC days (inclusive), ids below `before`. */
export interface LedgerFilter {
  kind?: "topup" | "debit" | "adjustment";
  requestId?: string;
  keyId?: string;
  from?: string;
  to?: string;
  before?: bigint;
}

export type HoldStatusName = "active" | "settled" | "released" | "expired" | "refused";

/** What a holds listing keeps: one request's hold, UTC days (inclusive), holds older than the one of `before` (a request id). */
export interface HoldFilter {
  requestId?: string;
  from?: string;
  to?: string;
  before?: string;
}

/** Entries or holds of UTC days `from` to `to` (inclusive; either may be open). */
const dayRange = ({ from, to }: { from?: string; to?: string }) =>
  from || to ? { day: { ...(from ? { gte: new Date(from) } : {}), ...(to ? { lte: new Date(to) } : {}) } } : {};

export interface Balance {
  projectId: string;
  balanceNano: bigint;
  heldNano: bigint;
  availableNano: bigint;
  dailyCapNano: bigint | null;
  spentTodayNano: bigint;
}

export class LedgerService {
  readonly batcher: MoneyBatcher;

  private readonly prisma: PrismaClient;

  constructor(
    private readonly database: Pick<Database, "prisma" | "query">,
    readonly clock: Clock,
    readonly holdTtlSeconds: number,
  ) {
    this.prisma = database.prisma;
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
    inputs: DrawInput[],
    options: { extendLease?: boolean } = {},
  ): Promise<{ outcome: "settled" | "unknown_lease" | "failed"; debitedNano: bigint }[]> {
    // The draw op moves an active lease's expiry to at least this: the epoch moves nothing.
    const expiresAt = options.extendLease === false ? new Date(0).toISOString() : this.expiresAt(this.clock.now());
    // Each on its own: one that fails (the batcher retries a failed batch op by op) must not fail the others.
    const results = await Promise.allSettled(
      inputs.map((input) =>
        this.batcher.submit({
          op: "draw",
          request_id: input.requestId,
          lease_id: input.leaseId,
          project_id: input.projectId,
          amount: input.amountNano.toString(),
          hold: input.holdNano.toString(),
          expires_at: expiresAt,
          model: input.model || null,
          access_path: input.accessPath || null,
          input_tokens: input.inputTokens,
          output_tokens: input.outputTokens,
          ...(input.costParts ? { cost_parts: input.costParts } : {}),
          ...(input.keyId ? { key_id: input.keyId } : {}),
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

  /** Every project's balance and holds added up: the ledger's totals (a balance is the sum of its ledger), read from the projects table. */
  async totals(): Promise<{ balanceNano: bigint; heldNano: bigint }> {
    const rows = await this.prisma.$queryRaw<{ balance: bigint | null; held: bigint | null }[]>`
      SELECT sum(balance_nano)::bigint AS balance, sum(held_nano)::bigint AS held FROM projects`;
    return { balanceNano: BigInt(rows[0]?.balance ?? 0), heldNano: BigInt(rows[0]?.held ?? 0) };
  }

  /** Voids up to `limit` active holds past their TTL at `at` (one short transaction); returns how many. */
  async expireHolds(limit = 100, at = this.clock.now()): Promise<number> {
    const rows = await this.prisma.$queryRaw<{ count: number }[]>`
      SELECT gateway_expire_holds(${at.toISOString()}::timestamptz, ${limit}::integer) AS count`;
    return Number(rows[0]!.count);
  }

  /** Active budget leases past their TTL at `at`: the sweeper voids them next (their journals are read first). */
  async dueLeases(at: Date): Promise<{ leaseId: string; projectId: string }[]> {
    const rows = await this.prisma.$queryRaw<{ request_id: string; project_id: string }[]>`
      SELECT request_id, project_id FROM holds WHERE status = 'active' AND lease AND expires_at <= ${at.toISOString()}::timestamptz`;
    return rows.map((row) => ({ leaseId: row.request_id, projectId: row.project_id }));
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

  async balance(projectId: string): Promise<Balance> {
    const project = await this.requireProject(projectId);
    const today = utcDay(this.clock.now());
    const spentToday = project.capDay && utcDay(project.capDay) === today ? project.capUsedNano : 0n;
    return {
      projectId,
      balanceNano: project.balanceNano,
      heldNano: project.heldNano,
      availableNano: project.balanceNano - project.heldNano,
      dailyCapNano: project.dailyCapNano,
      spentTodayNano: spentToday,
    };
  }

  /** A project's holds of one status, newest first; with `requestId`, that request's hold whatever its status. */
  /**
   * A project's holds of a status, newest first (or one request's, whatever its status), narrowed to UTC days;
   * `before` (a request id) pages back from that hold.
   */
  async holds(projectId: string, status: HoldStatusName, limit: number, filter: HoldFilter = {}) {
    await this.requireProject(projectId);
    const after = filter.before
      ? await this.prisma.hold.findFirst({ where: { projectId, requestId: filter.before }, select: { createdAt: true } })
      : undefined;
    if (filter.before && !after) throw invalidRequest(`before: no hold of this project has request id ${echo(filter.before)}`);
    return this.prisma.hold.findMany({
      where: {
        projectId,
        ...(filter.requestId ? { requestId: filter.requestId } : { status }),
        ...dayRange(filter),
        ...(after
          ? { OR: [{ createdAt: { lt: after.createdAt } }, { createdAt: after.createdAt, requestId: { lt: filter.before } }] }
          : {}),
      },
      orderBy: [{ createdAt: "desc" }, { requestId: "desc" }],
      take: limit,
    });
  }

  /** Debits per UTC day (the day each hold was placed) and model: requests, tokens, cost; only one key's with `keyId`. */
  async usage(projectId: string, from?: string, to?: string, keyId?: string): Promise<{ from: string; to: string; rows: UsageRow[] }> {
    const onlyKey = keyId ?? null;
    await this.requireProject(projectId);
    const today = utcDay(this.clock.now());
    const fromDay = from ?? `${today.slice(0, 8)}01`; // default: this month so far
    const toDay = to ?? today;
    const rows = await this.prisma.$queryRaw<
      {
        day: Date;
        model: string | null;
        requests: bigint;
        input_tokens: bigint | null;
        output_tokens: bigint | null;
        cost: bigint | null;
      }[]
    >`
      SELECT day, model, count(*) AS requests, sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens, -sum(amount_nano) AS cost
        FROM ledger_entries
       WHERE project_id = ${projectId} AND kind = 'debit' AND day BETWEEN ${fromDay}::date AND ${toDay}::date
         AND (${onlyKey}::text IS NULL OR key_id = ${onlyKey})
       GROUP BY day, model
       ORDER BY day, model`;
    // The split, summed per day, model and component (debits written before it existed have none).
    const parts = await this.prisma.$queryRaw<{ day: Date; model: string | null; component: string; units: bigint; cost: bigint }[]>`
      SELECT day, model, part.key AS component, sum((part.value->>'units')::bigint)::bigint AS units,
             sum((part.value->>'nano')::bigint)::bigint AS cost
        FROM ledger_entries, jsonb_each(cost_parts) AS part
       WHERE project_id = ${projectId} AND kind = 'debit' AND cost_parts IS NOT NULL
         AND day BETWEEN ${fromDay}::date AND ${toDay}::date AND (${onlyKey}::text IS NULL OR key_id = ${onlyKey})
       GROUP BY day, model, part.key
       ORDER BY day, model, part.key`;
    const key = (day: Date, model: string | null) => `${utcDay(day)}\u0000${model ?? ""}`;
    const split = new Map<string, UsageRow["components"]>();
    for (const part of parts) {
      const components = split.get(key(part.day, part.model)) ?? {};
      components[part.component] = { units: Number(part.units), costNano: BigInt(part.cost) };
      split.set(key(part.day, part.model), components);
    }
    const usage = rows.map((row) => ({
      day: utcDay(row.day),
      model: row.model ?? "",
      requests: Number(row.requests),
      inputTokens: Number(row.input_tokens ?? 0n),
      outputTokens: Number(row.output_tokens ?? 0n),
      costNano: BigInt(row.cost ?? 0n),
      components: split.get(key(row.day, row.model)) ?? {},
    }));
    return { from: fromDay, to: toDay, rows: usage };
  }

  /** A project's entries, newest first, narrowed by the filter; `before` (an entry id) pages back. */
  async ledger(projectId: string, limit: number, filter: LedgerFilter = {}): Promise<unknown[]> {
    await this.requireProject(projectId);
    return this.prisma.ledgerEntry.findMany({
      where: {
        projectId,
        ...(filter.kind ? { kind: filter.kind } : {}),
        ...(filter.requestId ? { requestId: filter.requestId } : {}),
        ...(filter.keyId ? { keyId: filter.keyId } : {}),
        ...dayRange(filter),
        ...(filter.before ? { id: { lt: filter.before } } : {}),
      },
      orderBy: { id: "desc" },
      take: limit,
    });
  }

  private async requireProject(projectId: string) {
    const project = await this.prisma.project.findUnique({ where: { id: projectId } });
    if (!project) throw notFound(`project ${echo(projectId)}`);
    return project;
  }
}
