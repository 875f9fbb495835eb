// What the ledger says, read for operators and metrics: a project's balance, holds, usage and entries,
// and the totals of all projects. LedgerService (ledger-service.ts), the only writer, answers these too.
import { echo } from "@gateway/proto";
import { utcDay, type Clock } from "../clock";
import type { Database } from "../database/connect";
import { invalidRequest, notFound } from "../errors";
import type { PrismaClient } from "../generated/prisma/client";
import { rollUpPending, USAGE_SQL } from "./usage-rollups";

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

export class LedgerQueries {
  protected readonly prisma: PrismaClient;

  constructor(
    database: Pick<Database, "prisma" | "query">,
    readonly clock: Clock,
  ) {
    this.prisma = database.prisma;
  }

  /** Every project's balance and holds added up: the ledger's totals (a balance is the sum of its ledger), read from the projects table. */
  async totals(): Promise<{ balanceNano: bigint; heldNano: bigint }> {
    const rows = await this.prisma.$queryRaw<{ balance: bigint | null; held: bigint | null }[]>`
      SELECT sum(balance_nano)::bigint AS balance, sum(held_nano)::bigint AS held FROM projects`;
    return { balanceNano: BigInt(rows[0]?.balance ?? 0), heldNano: BigInt(rows[0]?.held ?? 0) };
  }

  /** Active budget leases past their TTL at `at`: the sweeper voids them next (their journals are read first). */
  async dueLeases(at: Date): Promise<{ leaseId: string; projectId: string }[]> {
    const rows = await this.prisma.$queryRaw<{ request_id: string; project_id: string }[]>`
      SELECT request_id, project_id FROM holds WHERE status = 'active' AND lease AND expires_at <= ${at.toISOString()}::timestamptz`;
    return rows.map((row) => ({ leaseId: row.request_id, projectId: row.project_id }));
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
    await this.requireProject(projectId);
    const today = utcDay(this.clock.now());
    const fromDay = from ?? `${today.slice(0, 8)}01`; // default: this month so far
    const toDay = to ?? today;
    // From the rollups (usage_daily): rows per day, model and access path, whatever the requests.
    await rollUpPending(this.prisma);
    const rows = await this.prisma.$queryRawUnsafe<
      {
        day: Date;
        model: string;
        requests: bigint;
        input_tokens: bigint;
        output_tokens: bigint;
        cost: bigint;
        parts: Record<string, { units: number; nano: string }>;
      }[]
    >(USAGE_SQL, projectId, keyId ?? "*", fromDay, toDay);
    // A day and model reached through several access paths: their rows added as they come (ordered by day and model).
    const usage: UsageRow[] = [];
    for (const row of rows) {
      const day = utcDay(row.day);
      let last = usage.at(-1);
      if (!last || last.day !== day || last.model !== row.model) {
        last = { day, model: row.model, requests: 0, inputTokens: 0, outputTokens: 0, costNano: 0n, components: {} };
        usage.push(last);
      }
      last.requests += Number(row.requests);
      last.inputTokens += Number(row.input_tokens);
      last.outputTokens += Number(row.output_tokens);
      last.costNano += BigInt(row.cost);
      for (const [component, part] of Object.entries(row.parts)) {
        const sum = last.components[component] ?? { units: 0, costNano: 0n };
        sum.units += Number(part.units);
        sum.costNano += BigInt(part.nano);
        last.components[component] = sum;
      }
    }
    return { from: fromDay, to: toDay, rows: usage };
  }

  /**
   * The sweeper's round of the rollups: moves the debits written since the last round, then vacuums the
   * queue, whose every row is deleted soon after it is written: left to autovacuum (a minute apart at
   * best), a busy minute's dead entries made every roll-up, and so every usage read, scan them first
   * (40 ms at the ledger benchmark's 5 million debits).
   */
  async rollUpPending(): Promise<number> {
    const moved = await rollUpPending(this.prisma);
    if (moved > 0) await this.prisma.$executeRawUnsafe("VACUUM (SKIP_LOCKED) usage_pending");
    return moved;
  }

  /** Debits queued for the rollups (the sweeper's backlog, for metrics). */
  async pendingRollUps(): Promise<number> {
    const rows = await this.prisma.$queryRaw<{ pending: number }[]>`SELECT count(*)::int AS pending FROM usage_pending`;
    return rows[0]?.pending ?? 0;
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

  /** The project, or 404 not_found. */
  protected async requireProject(projectId: string) {
    const project = await this.prisma.project.findUnique({ where: { id: projectId } });
    if (!project) throw notFound(`project ${echo(projectId)}`);
    return project;
  }
}
