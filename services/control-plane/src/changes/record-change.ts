// The writes that record an admin action, to run in the action's own transaction: its audit entry, and for
// a change the data planes act on, its change event too (the change feed fans those out).
import type { PrismaClient } from "../generated/prisma/client";
import { type Actor, type AuditOnly, auditEventRow } from "./audit-log";
import { type Change, changeEventRow } from "./change-feed";

type Writer = Pick<PrismaClient, "changeEvent" | "auditEvent">;

/** A change for the data planes: its change event and its audit entry. */
export const recordChange = (db: Writer, change: Change, actor: Actor) =>
  [db.changeEvent.create({ data: changeEventRow(change) }), db.auditEvent.create({ data: auditEventRow(change, actor) })] as const;

/** An action no data plane acts on: its audit entry alone. */
export const recordAction = (db: Writer, action: AuditOnly, actor: Actor) => db.auditEvent.create({ data: auditEventRow(action, actor) });
