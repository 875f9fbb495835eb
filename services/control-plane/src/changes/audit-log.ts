// The audit log of admin actions: the change events the writers record with every change (change-feed.ts),
// newest first. Who acted is not recorded yet: today every change comes through the admin token, or from
// the control plane itself (an expired key's revocation, the default catalogue at first start).
import type { PrismaClient } from "../generated/prisma/client";
import type { Change } from "./change-feed";

export const CHANGE_KINDS = ["catalogue", "key_revoked", "key_changed", "project_changed"] as const;

export interface AuditEntry {
  id: bigint;
  kind: Change["kind"];
  payload: { projectId?: string; keyId?: string; revision?: string };
  createdAt: Date;
}

export interface AuditFilter {
  kind?: Change["kind"];
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
    return rows.map((row) => ({ ...row, kind: row.kind as Change["kind"], payload: row.payload as AuditEntry["payload"] }));
  }
}
