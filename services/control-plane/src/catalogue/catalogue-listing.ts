// The loaded catalogue as operators browse it: curated or inventory, searched, a page at a time,
// with the revision it belongs to (GET /admin/catalogue/models).
import type { Prisma, PrismaClient } from "../generated/prisma/client";

export interface CatalogueQuery {
  /** true: the curated models; false: the inventory; undefined: both. */
  curated?: boolean;
  /** Words every one of which an id, owner, provider or upstream model contains (case-insensitive). */
  q?: string;
  limit: number;
  offset: number;
}

const withPaths = { paths: { orderBy: { position: "asc" } } } as const;
export type ListedModel = Prisma.CatalogueModelGetPayload<{ include: typeof withPaths }>;

export interface CatalogueRevisionRow {
  id: number;
  source: string;
  loadedAt: Date;
}

export interface CatalogueListing {
  revision: CatalogueRevisionRow | null;
  /** Models matching the query, all pages. */
  total: number;
  models: ListedModel[];
}

function matching(query: CatalogueQuery): Prisma.CatalogueModelWhereInput {
  const words = (query.q ?? "").trim().split(/\s+/).filter(Boolean);
  const contains = (word: string) => ({ contains: word, mode: "insensitive" as const });
  return {
    ...(query.curated === undefined ? {} : { curated: query.curated }),
    AND: words.map((word) => ({
      OR: [
        { id: contains(word) },
        { ownedBy: contains(word) },
        { paths: { some: { OR: [{ provider: contains(word) }, { upstreamModel: contains(word) }] } } },
      ],
    })),
  };
}

export async function listCatalogue(prisma: PrismaClient, query: CatalogueQuery): Promise<CatalogueListing> {
  const where = matching(query);
  // One snapshot of the database for the three reads: a page never mixes two revisions.
  const [revision, total, models] = await prisma.$transaction(
    [
      prisma.catalogueRevision.findFirst({ orderBy: { id: "desc" }, select: { id: true, source: true, loadedAt: true } }),
      prisma.catalogueModel.count({ where }),
      prisma.catalogueModel.findMany({
        where,
        orderBy: [{ curated: "desc" }, { position: "asc" }],
        include: withPaths,
        take: query.limit,
        skip: query.offset,
      }),
    ],
    { isolationLevel: "RepeatableRead" },
  );
  return { revision, total, models };
}
