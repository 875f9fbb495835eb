// Projects and their limits.
import type { PrismaClient } from "../generated/prisma/client";
import type { Actor } from "../changes/audit-log";
import type { ChangeFeed } from "../changes/change-feed";
import { recordAction, recordChange } from "../changes/record-change";
import { conflict, invalidRequest, notFound } from "../errors";
import { newProjectId, PROJECT_ID_PATTERN } from "../keys/api-key-format";
import { echo } from "@gateway/proto";

export interface LimitsUpdate {
  /** null = deployment default, 0 = no limit. */
  rpmLimit?: number | null;
  /** null = no cap. */
  dailyCapNano?: bigint | null;
}

export class ProjectService {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly changes: ChangeFeed,
  ) {}

  async create(input: { id?: string; name: string }, actor: Actor) {
    const id = input.id ?? newProjectId();
    if (!PROJECT_ID_PATTERN.test(id)) throw invalidRequest("project id must be 3 to 32 characters of a-z and 0-9");
    if (await this.prisma.project.findUnique({ where: { id } })) throw conflict(`project ${echo(id)} already exists`);
    const [project] = await this.prisma.$transaction([
      this.prisma.project.create({ data: { id, name: input.name } }),
      recordAction(this.prisma, { kind: "project_created", projectId: id }, actor),
    ]);
    return project;
  }

  list() {
    return this.prisma.project.findMany({ orderBy: { createdAt: "asc" } });
  }

  async get(id: string) {
    const project = await this.prisma.project.findUnique({ where: { id } });
    if (!project) throw notFound(`project ${echo(id)}`);
    return project;
  }

  async setLimits(id: string, update: LimitsUpdate, actor: Actor) {
    const existing = await this.get(id);
    const rpmLimit = update.rpmLimit !== undefined ? update.rpmLimit : existing.rpmLimit;
    const [project] = await this.prisma.$transaction([
      this.prisma.project.update({
        where: { id },
        data: {
          ...(update.rpmLimit !== undefined ? { rpmLimit: update.rpmLimit } : {}),
          ...(update.dailyCapNano !== undefined ? { dailyCapNano: update.dailyCapNano } : {}),
        },
      }),
      ...recordChange(this.prisma, { kind: "project_changed", projectId: id, rpmLimit }, actor),
    ]);
    await this.changes.poll();
    return project;
  }
}
