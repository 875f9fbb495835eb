// Issuing, listing, revoking and validating API keys. Only hashes are stored.
import { timingSafeEqual } from "node:crypto";
import type { PrismaClient } from "../generated/prisma/client";
import { changeEventRow, type ChangeFeed } from "../changes/change-feed";
import { notFound } from "../errors";
import { hashApiKey, newApiKey, parseApiKey, randomBase62 } from "./api-key-format";
import { echo } from "@gateway/proto";

export interface KeyValidation {
  valid: boolean;
  projectId: string;
  keyId: string;
  rpmLimit: number | null;
}

const INVALID: KeyValidation = { valid: false, projectId: "", keyId: "", rpmLimit: null };

export class KeyService {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly changes: ChangeFeed,
  ) {}

  /** Returns the full key; it is never stored and cannot be shown again. */
  async issue(projectId: string, name: string | undefined) {
    const project = await this.prisma.project.findUnique({ where: { id: projectId } });
    if (!project) throw notFound(`project ${echo(projectId)}`);
    const key = newApiKey(projectId);
    const record = await this.prisma.apiKey.create({
      data: { id: `key_${randomBase62(16)}`, projectId, hash: hashApiKey(key), hint: key.slice(-4), name: name ?? null },
    });
    return { key, record };
  }

  list(projectId: string) {
    return this.prisma.apiKey.findMany({ where: { projectId }, orderBy: { createdAt: "asc" } });
  }

  async revoke(keyId: string) {
    const existing = await this.prisma.apiKey.findUnique({ where: { id: keyId } });
    if (!existing) throw notFound(`key ${echo(keyId)}`);
    if (existing.revokedAt) return existing;
    const [record] = await this.prisma.$transaction([
      this.prisma.apiKey.update({ where: { id: keyId }, data: { revokedAt: new Date() } }),
      this.prisma.changeEvent.create({ data: changeEventRow({ kind: "key_revoked", projectId: existing.projectId, keyId }) }),
    ]);
    await this.changes.poll();
    return record;
  }

  async validate(key: string): Promise<KeyValidation> {
    const parsed = parseApiKey(key);
    if (!parsed) return INVALID;
    const hash = hashApiKey(key);
    const record = await this.prisma.apiKey.findUnique({ where: { hash }, include: { project: true } });
    if (!record || record.revokedAt || record.projectId !== parsed.projectId) return INVALID;
    // The lookup is by hash; the constant-time comparison guards against a
    // store that matched loosely.
    if (!timingSafeEqual(Buffer.from(record.hash, "hex"), Buffer.from(hash, "hex"))) return INVALID;
    return { valid: true, projectId: record.projectId, keyId: record.id, rpmLimit: record.project.rpmLimit };
  }
}
