// Issuing, listing, limiting, rotating, revoking and validating API keys. Only hashes are stored.
// A key's money limits are enforced by the money batch (migration 0007, docs/keys.md); the
// changes here go through SQL functions that take the project's lock, like every money write.
import { timingSafeEqual } from "node:crypto";
import { echo } from "@gateway/proto";

import { type Actor, CONTROL_PLANE } from "../changes/audit-log";
import type { ChangeFeed } from "../changes/change-feed";
import { recordAction, recordChange } from "../changes/record-change";
import { sqlStateOf } from "../database/sql-state";
import type { ApiKey, PrismaClient } from "../generated/prisma/client";
import { conflict, invalidRequest, notFound } from "../errors";
import { KEY_SPEND_SQL, rollUpPending } from "../billing/usage-rollups";
import { type Clock, utcDay } from "../clock";
import { hashApiKey, newApiKey, parseApiKey, randomBase62 } from "./api-key-format";

export interface KeyValidation {
  valid: boolean;
  projectId: string;
  keyId: string;
  rpmLimit: number | null;
  /** The key's own limits (those of its successor after a rotation), for valid keys. */
  key?: {
    rpmLimit: number | null;
    moneyLimits: boolean;
    expiresAt: Date | null;
    limitsKeyId: string;
  };
}

/** What an operator sets on a key; undefined leaves it, null clears it. */
export interface KeyLimitsUpdate {
  name?: string | null;
  rpmLimit?: number | null;
  dailyCapNano?: bigint | null;
  budgetNano?: bigint | null;
  expiresAt?: Date | null;
}

/** A key's spend from the ledger: every debit, today's (by the day each hold was placed), and when it was last billed. */
export interface KeySpend {
  totalNano: bigint;
  todayNano: bigint;
  requests: number;
  /** Its latest debit's time: the key's last request that reached an upstream (refused ones leave none). */
  lastUsedAt: Date | null;
}

const INVALID: KeyValidation = { valid: false, projectId: "", keyId: "", rpmLimit: null };
const NO_SPEND: KeySpend = { totalNano: 0n, todayNano: 0n, requests: 0, lastUsedAt: null };

/** A key's spend from `KeyService.spend`'s answer: none when it has no debits. */
export const spendOf = (spend: Map<string, KeySpend>, keyId: string): KeySpend => spend.get(keyId) ?? NO_SPEND;

/** object_not_in_prerequisite_state: gateway_rotate_key refused a revoked, expired or rotated key. */
const NOT_ROTATABLE = "55000";
/** no_data_found: the key went away between the lookup and the function. */
const NO_DATA = "P0002";

/** A key with a daily cap or a total budget: its money is counted, and its requests are never leased. */
const hasMoneyLimits = (key: Pick<ApiKey, "dailyCapNano" | "budgetNano">) => key.dailyCapNano !== null || key.budgetNano !== null;

export class KeyService {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly changes: ChangeFeed,
    private readonly clock: Clock,
  ) {}

  /** Returns the full key; it is never stored and cannot be shown again. */
  async issue(projectId: string, input: { name?: string } & Omit<KeyLimitsUpdate, "name">, actor: Actor) {
    const project = await this.prisma.project.findUnique({ where: { id: projectId } });
    if (!project) throw notFound(`project ${echo(projectId)}`);
    this.checkExpiry(input.expiresAt);
    const key = newApiKey(projectId);
    const id = `key_${randomBase62(16)}`;
    const [record] = await this.prisma.$transaction([
      this.prisma.apiKey.create({
        data: {
          id,
          projectId,
          hash: hashApiKey(key),
          hint: key.slice(-4),
          name: input.name ?? null,
          rpmLimit: input.rpmLimit ?? null,
          dailyCapNano: input.dailyCapNano ?? null,
          budgetNano: input.budgetNano ?? null,
          expiresAt: input.expiresAt ?? null,
        },
      }),
      // With a budget or a cap, the project's money operations start looking at its keys.
      this.prisma.$executeRaw`SELECT gateway_key_issued(${id})`,
      recordAction(this.prisma, { kind: "key_issued", projectId, keyId: id }, actor),
    ]);
    return { key, record };
  }

  list(projectId: string) {
    return this.prisma.apiKey.findMany({ where: { projectId }, orderBy: { createdAt: "asc" } });
  }

  async get(keyId: string) {
    const key = await this.prisma.apiKey.findUnique({ where: { id: keyId } });
    if (!key) throw notFound(`key ${echo(keyId)}`);
    return key;
  }

  /** Sets a key's limits or expiry; the data planes drop what they cached of it. */
  async update(keyId: string, update: KeyLimitsUpdate, actor: Actor) {
    const existing = await this.get(keyId);
    if (existing.revokedAt) throw conflict(`key ${echo(keyId)} is revoked`);
    if (existing.replacedBy) throw conflict(`key ${echo(keyId)} was rotated: its limits are its successor's, ${existing.replacedBy}`);
    this.checkExpiry(update.expiresAt);
    const changes: Record<string, string | number | null> = {};
    if (update.name !== undefined) changes.name = update.name;
    if (update.rpmLimit !== undefined) changes.rpm_limit = update.rpmLimit;
    if (update.dailyCapNano !== undefined) changes.daily_cap_nano = update.dailyCapNano?.toString() ?? null;
    if (update.budgetNano !== undefined) changes.budget_nano = update.budgetNano?.toString() ?? null;
    if (update.expiresAt !== undefined) changes.expires_at = update.expiresAt?.toISOString() ?? null;
    await this.prisma.$transaction([
      this.prisma.$executeRaw`SELECT gateway_update_key(${keyId}, ${JSON.stringify(changes)}::jsonb, ${utcDay(this.clock.now())}::date)`,
      ...recordChange(this.prisma, { kind: "key_changed", projectId: existing.projectId, keyId }, actor),
    ]);
    await this.changes.poll();
    return this.get(keyId);
  }

  /**
   * Issues a successor with the key's name, limits, expiry and counters; the key stays valid for
   * `graceSeconds` (or until its own earlier expiry), then is revoked. Returns the successor's full key.
   */
  async rotate(keyId: string, graceSeconds: number, actor: Actor) {
    const existing = await this.get(keyId);
    const key = newApiKey(existing.projectId);
    const successorId = `key_${randomBase62(16)}`;
    const now = this.clock.now();
    const until = new Date(now.getTime() + graceSeconds * 1000);
    try {
      await this.prisma.$transaction([
        this.prisma.$executeRaw`SELECT gateway_rotate_key(${keyId}, ${successorId}, ${hashApiKey(key)}, ${key.slice(-4)},
                                                          ${until.toISOString()}::timestamptz, ${now.toISOString()}::timestamptz)`,
        ...recordChange(this.prisma, { kind: "key_changed", projectId: existing.projectId, keyId }, actor),
        recordAction(this.prisma, { kind: "key_issued", projectId: existing.projectId, keyId: successorId, replaces: keyId }, actor),
      ]);
    } catch (error) {
      const state = sqlStateOf(error);
      if (state === NOT_ROTATABLE) throw conflict(`key ${echo(keyId)} cannot be rotated: it is revoked, expired or already rotated`);
      if (state === NO_DATA) throw notFound(`key ${echo(keyId)}`);
      throw error;
    }
    await this.changes.poll();
    return { key, record: await this.get(successorId), previous: await this.get(keyId) };
  }

  async revoke(keyId: string, actor: Actor) {
    const existing = await this.get(keyId);
    if (existing.revokedAt) return existing;
    const [record] = await this.prisma.$transaction([
      this.prisma.apiKey.update({ where: { id: keyId }, data: { revokedAt: this.clock.now() } }),
      ...recordChange(this.prisma, { kind: "key_revoked", projectId: existing.projectId, keyId }, actor),
    ]);
    await this.changes.poll();
    return record;
  }

  /** Revokes keys whose expiry passed (a set expiry, or a rotation's grace); returns how many. */
  async revokeExpired(at = this.clock.now()): Promise<number> {
    const due = await this.prisma.apiKey.findMany({ where: { revokedAt: null, expiresAt: { lte: at } }, take: 500 });
    if (due.length === 0) return 0;
    await this.prisma.$transaction([
      ...due.map((key) => this.prisma.apiKey.updateMany({ where: { id: key.id, revokedAt: null }, data: { revokedAt: key.expiresAt } })),
      ...due.flatMap((key) => recordChange(this.prisma, { kind: "key_revoked", projectId: key.projectId, keyId: key.id }, CONTROL_PLANE)),
    ]);
    await this.changes.poll();
    return due.length;
  }

  /** Spend per key of a project, from the rollups kept with its debits (keys without debits are absent). */
  async spend(projectId: string, keyId?: string): Promise<Map<string, KeySpend>> {
    const today = utcDay(this.clock.now());
    await rollUpPending(this.prisma);
    const rows = await this.prisma.$queryRawUnsafe<
      { key_id: string; total: bigint; today: bigint | null; requests: bigint; last_used: Date }[]
    >(KEY_SPEND_SQL, projectId, today, keyId ?? null);
    return new Map(
      rows.map((row) => [
        row.key_id,
        {
          totalNano: BigInt(row.total),
          todayNano: BigInt(row.today ?? 0n),
          requests: Number(row.requests),
          lastUsedAt: new Date(row.last_used),
        },
      ]),
    );
  }

  async validate(key: string): Promise<KeyValidation> {
    const parsed = parseApiKey(key);
    if (!parsed) return INVALID;
    const hash = hashApiKey(key);
    const record = await this.prisma.apiKey.findUnique({ where: { hash }, include: { project: true } });
    if (!record || record.revokedAt || record.projectId !== parsed.projectId) return INVALID;
    if (record.expiresAt && record.expiresAt <= this.clock.now()) return INVALID;
    // The lookup is by hash; the constant-time comparison guards against a
    // store that matched loosely.
    if (!timingSafeEqual(Buffer.from(record.hash, "hex"), Buffer.from(hash, "hex"))) return INVALID;
    const limits = await this.limitsKey(record);
    return {
      valid: true,
      projectId: record.projectId,
      keyId: record.id,
      rpmLimit: record.project.rpmLimit,
      key: {
        rpmLimit: limits.rpmLimit,
        moneyLimits: hasMoneyLimits(limits),
        expiresAt: record.expiresAt,
        limitsKeyId: limits.id,
      },
    };
  }

  /** The key whose limits apply to `key`: itself, or the end of its rotations. */
  private async limitsKey(key: ApiKey): Promise<ApiKey> {
    let current = key;
    for (let step = 0; current.replacedBy && step < 64; step++) {
      const next = await this.prisma.apiKey.findUnique({ where: { id: current.replacedBy } });
      if (!next) break;
      current = next;
    }
    return current;
  }

  private checkExpiry(expiresAt: Date | null | undefined): void {
    if (expiresAt && expiresAt <= this.clock.now()) throw invalidRequest("expires_at must be in the future");
  }
}
