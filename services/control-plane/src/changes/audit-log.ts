// The audit log: every admin action with who acted, newest first (audit_events). Each is written in the same
// transaction as the action (record-change.ts); the changes the data planes act on also go to change_events.
import type { Prisma, PrismaClient } from "../generated/prisma/client";
import type { Change } from "./change-feed";

/** Admin actions no data plane acts on: recorded for the audit log only. */
export type AuditOnly =
  | { kind: "project_created"; projectId: string }
  | { kind: "key_issued"; projectId: string; keyId: string; replaces?: string }
  | { kind: "topup"; projectId: string; amountNano: string };

/**
 * Who acted: the admin API's operator (today only the admin token; an operator account's name once there
 * are accounts, decision 0009) or the control plane itself (its sweeps, its start-up catalogue).
 */
export type Actor = string;
export const ADMIN_TOKEN: Actor = "admin token";
export const CONTROL_PLANE: Actor = "control plane";

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

export function auditEventRow(action: Change | AuditOnly, actor: Actor): Prisma.AuditEventCreateInput {
  const { kind, ...payload } = action;
  return { kind, actor, payload };
}

export interface AuditEntry {
  id: bigint;
  kind: ChangeKind;
  /** Null for actions recorded before actors were. */
  actor: string | null;
  payload: { projectId?: string; keyId?: string; revision?: string; amountNano?: string; replaces?: string };
  createdAt: Date;
}

export interface AuditFilter {
  kind?: ChangeKind;
  /** Only events older than this id (the oldest one already shown). */
  before?: bigint;
  limit: number;
}

export class AuditLog {
  constructor(private readonly prisma: Pick<PrismaClient, "auditEvent">) {}

  async list(filter: AuditFilter): Promise<AuditEntry[]> {
    const rows = await this.prisma.auditEvent.findMany({
      where: { ...(filter.kind ? { kind: filter.kind } : {}), ...(filter.before ? { id: { lt: filter.before } } : {}) },
      orderBy: { id: "desc" },
      take: filter.limit,
    });
    return rows.map((row) => ({ ...row, kind: row.kind as ChangeKind, payload: row.payload as AuditEntry["payload"] }));
  }
}
