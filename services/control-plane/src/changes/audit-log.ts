// The audit log of admin actions: the change events the writers record with every change and admin action
// (change-feed.ts), with who acted, newest first.
import type { PrismaClient } from "../generated/prisma/client";
import type { AuditOnly, Change } from "./change-feed";

export const CHANGE_KINDS = [
  "project_created",
  "project_changed",
  "topup",
  "key_issued",
  "key_changed",
  "key_revoked",
  "catalogue",
] as const satisfies readonly (Change | AuditOnly)["kind"][];
export type ChangeKind = (typeof CHANGE_KINDS)[number];

export interface AuditEntry {
  id: bigint;
  kind: ChangeKind;
  /** The change's payload; `actor` absent on events recorded before actors were. */
  payload: { projectId?: string; keyId?: string; revision?: string; amountNano?: string; replaces?: string; actor?: string };
  createdAt: Date;
}

export interface AuditFilter {
  kind?: ChangeKind;
  /** Only events older than this id (the oldest one already shown). */
  before?: bigint;
  limit: number;
}

export class AuditLog {
  constructor(private readonly prisma: Pick<PrismaClient, "changeEvent">) {}

  async list(filter: AuditFilter): Promise<AuditEntry[]> {
    const rows = await this.prisma.changeEvent.findMany({
      where: { ...(filter.kind ? { kind: filter.kind } : {}), ...(filter.before ? { id: { lt: filter.before } } : {}) },
      orderBy: { id: "desc" },
      take: filter.limit,
    });
    return rows.map((row) => ({ ...row, kind: row.kind as ChangeKind, payload: row.payload as AuditEntry["payload"] }));
  }
}
