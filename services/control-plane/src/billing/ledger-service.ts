// The only writer of money. Every operation is one call to a PL/pgSQL
// function (prisma/migrations/0002_money_functions) so it is atomic and
// idempotent by request id on PostgreSQL and PGlite alike.
import type { PrismaClient } from "../generated/prisma/client";
import { secondsToNextUtcMidnight, utcDay, type Clock } from "../clock";
import { notFound } from "../errors";

export type ReserveOutcome = "reserved" | "insufficient_credits" | "spend_cap_exceeded" | "unknown_project";
export type SettleOutcome = "settled" | "already_released" | "unknown_request";
export type ReleaseOutcome = "released" | "already_settled" | "unknown_request";

export interface ReserveInput {
  requestId: string;
  projectId: string;
  amountNano: bigint;
  model: string;
  accessPath: string;
}

export interface SettleInput {
  requestId: string;
  amountNano: bigint;
  model: string;
  accessPath: string;
  inputTokens: number;
  outputTokens: number;
}

export interface Balance {
  projectId: string;
  balanceNano: bigint;
  heldNano: bigint;
  availableNano: bigint;
  dailyCapNano: bigint | null;
  spentTodayNano: bigint;
}

export class LedgerService {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly clock: Clock,
    private readonly holdTtlSeconds: number,
  ) {}

  async reserve(input: ReserveInput): Promise<{ outcome: ReserveOutcome; availableNano: bigint; retryAfterSeconds: number }> {
    const now = this.clock.now();
    const expiresAt = new Date(now.getTime() + this.holdTtlSeconds * 1000);
    const rows = await this.prisma.$queryRaw<{ r_outcome: ReserveOutcome; r_available: bigint }[]>`
      SELECT * FROM gateway_reserve(${input.requestId}, ${input.projectId}, ${input.amountNano}::bigint,
        ${utcDay(now)}::date, ${expiresAt.toISOString()}::timestamptz, ${input.model}, ${input.accessPath})`;
    const row = rows[0]!;
    return {
      outcome: row.r_outcome,
      availableNano: BigInt(row.r_available),
      retryAfterSeconds: row.r_outcome === "spend_cap_exceeded" ? secondsToNextUtcMidnight(now) : 0,
    };
  }

  async settle(input: SettleInput): Promise<{ outcome: SettleOutcome; debitedNano: bigint }> {
    const rows = await this.prisma.$queryRaw<{ r_outcome: SettleOutcome; r_debited: bigint }[]>`
      SELECT * FROM gateway_settle(${input.requestId}, ${input.amountNano}::bigint, ${input.model || null},
        ${input.accessPath || null}, ${input.inputTokens}::integer, ${input.outputTokens}::integer)`;
    const row = rows[0]!;
    return { outcome: row.r_outcome, debitedNano: BigInt(row.r_debited) };
  }

  async release(requestId: string): Promise<ReleaseOutcome> {
    const rows = await this.prisma.$queryRaw<{ r_outcome: ReleaseOutcome }[]>`SELECT * FROM gateway_release(${requestId})`;
    return rows[0]!.r_outcome;
  }

  /** Voids active holds past their TTL; returns how many. */
  async expireHolds(limit = 1000): Promise<number> {
    const rows = await this.prisma.$queryRaw<{ count: number }[]>`
      SELECT gateway_expire_holds(${this.clock.now().toISOString()}::timestamptz, ${limit}::integer) AS count`;
    return Number(rows[0]!.count);
  }

  async topUp(projectId: string, amountNano: bigint, idempotencyKey: string): Promise<{ entryId: bigint; amountNano: bigint; replayed: boolean }> {
    await this.requireProject(projectId);
    const rows = await this.prisma.$queryRaw<{ r_entry_id: bigint; r_amount: bigint; r_replayed: boolean }[]>`
      SELECT * FROM gateway_topup(${projectId}, ${amountNano}::bigint, ${idempotencyKey}, ${utcDay(this.clock.now())}::date)`;
    const row = rows[0]!;
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

  async ledger(projectId: string, limit: number): Promise<unknown[]> {
    await this.requireProject(projectId);
    return this.prisma.ledgerEntry.findMany({ where: { projectId }, orderBy: { id: "desc" }, take: limit });
  }

  private async requireProject(projectId: string) {
    const project = await this.prisma.project.findUnique({ where: { id: projectId } });
    if (!project) throw notFound(`project ${projectId}`);
    return project;
  }
}
