// Stores the catalogue and serves it as the snapshot the data planes receive.
import { type Catalogue, protoField } from "@gateway/proto";
import type { Prisma, PrismaClient } from "../generated/prisma/client";
import type { Actor } from "../changes/audit-log";
import type { ChangeFeed } from "../changes/change-feed";
import { recordChange } from "../changes/record-change";
import { type CatalogueFile, type NanoRates, type PriceComponentsJson, TOKEN_RATES } from "./catalogue-file";
import { type CatalogueListing, type CatalogueQuery, listCatalogue } from "./catalogue-listing";
import { normalizeCatalogue } from "./normalize-catalogue";

const optionalInt64 = (value: bigint | null): string | undefined => (value === null ? undefined : value.toString());

function protoRates(rates: NanoRates): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const rate of TOKEN_RATES) {
    const value = rates[rate];
    if (value !== undefined) fields[protoField(`${rate}_nano_per_m`)] = value;
  }
  return fields;
}

/** The price components column as the proto's Price fields beyond the four columns. */
function protoComponents(components: PriceComponentsJson) {
  const { input_image, web_search, long_context, service_tiers, verified_components, ...rates } = components;
  return {
    ...protoRates(rates),
    inputImageNano: input_image,
    webSearchNano: web_search,
    longContext: long_context ? { aboveInputTokens: long_context.above_input_tokens, rates: protoRates(long_context) } : null,
    serviceTiers: Object.fromEntries(Object.entries(service_tiers ?? {}).map(([tier, tierRates]) => [tier, protoRates(tierRates)])),
    verifiedComponents: verified_components ?? [],
  };
}

export class CatalogueService {
  private cached: Catalogue | undefined;
  /** Bumped by every change: a snapshot read that began before one is not cached (it may be the old catalogue). */
  private generation = 0;

  constructor(
    private readonly prisma: PrismaClient,
    private readonly changes: ChangeFeed,
  ) {
    // Any replica's reload invalidates this replica's cached snapshot.
    changes.subscribe((change) => {
      if (change.kind === "catalogue") this.invalidate();
    });
  }

  async isEmpty(): Promise<boolean> {
    return (await this.prisma.catalogueRevision.count()) === 0;
  }

  /**
   * Replaces the whole catalogue in one transaction; returns the new revision.
   * Loads are serialised across control-plane replicas by an advisory lock
   * (two replicas starting on one empty database both load the default); with
   * `onlyIfEmpty`, a load that finds a catalogue already there (after the
   * lock) keeps it and returns its revision.
   */
  async load(
    file: CatalogueFile,
    source: string,
    actor: Actor,
    options: { onlyIfEmpty?: boolean } = {},
  ): Promise<{ revision: string; models: number; curated: number }> {
    const models = normalizeCatalogue(file);
    const revision = await this.prisma.$transaction(
      async (tx) => {
        await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext('gateway_catalogue_load'))`;
        if (options.onlyIfEmpty) {
          const existing = await tx.catalogueRevision.findFirst({ orderBy: { id: "desc" } });
          if (existing) return String(existing.id);
        }
        await tx.accessPath.deleteMany();
        await tx.catalogueModel.deleteMany();
        await tx.catalogueModel.createMany({ data: models.map(({ paths: _paths, ...model }) => model) });
        await tx.accessPath.createMany({
          data: models.flatMap((model) =>
            model.paths.map((path, position) => ({
              ...path,
              priceComponents: path.priceComponents as unknown as Prisma.InputJsonObject,
              modelId: model.id,
              position,
            })),
          ),
        });
        const created = await tx.catalogueRevision.create({ data: { source, defaults: file.defaults } });
        for (const write of recordChange(tx, { kind: "catalogue", revision: String(created.id) }, actor)) await write;
        return String(created.id);
        // Hundreds of models and paths: Prisma's 5 s default for interactive transactions is too short
        // on a busy machine, and a control plane that cannot load its catalogue cannot start.
      },
      { timeout: 60_000, maxWait: 30_000 },
    );
    this.invalidate();
    await this.changes.poll();
    return { revision, models: models.length, curated: models.filter((model) => model.curated).length };
  }

  /** The loaded models as operators browse them (the admin API's listing). */
  list(query: CatalogueQuery): Promise<CatalogueListing> {
    return listCatalogue(this.prisma, query);
  }

  private invalidate(): void {
    this.generation++;
    this.cached = undefined;
  }

  async snapshot(): Promise<Catalogue> {
    if (this.cached) return this.cached;
    const generation = this.generation;
    // One snapshot of the database for both reads: a revision never goes out with another revision's models.
    const [revision, models] = await this.prisma.$transaction(
      [
        this.prisma.catalogueRevision.findFirst({ orderBy: { id: "desc" } }),
        this.prisma.catalogueModel.findMany({
          orderBy: [{ curated: "desc" }, { position: "asc" }],
          include: { paths: { orderBy: { position: "asc" } } },
        }),
      ],
      { isolationLevel: "RepeatableRead" },
    );
    const defaults = (revision?.defaults ?? { embeddings: "" }) as CatalogueFile["defaults"];
    const snapshot: Catalogue = {
      revision: revision ? String(revision.id) : "",
      defaults: { embeddings: defaults.embeddings },
      models: models.map((model) => ({
        id: model.id,
        curated: model.curated,
        tiers: model.tiers,
        purposes: model.purposes,
        ownedBy: model.ownedBy,
        created: model.created,
        contextLength: model.contextLength,
        maxOutputTokens: model.maxOutputTokens,
        inputModalities: model.inputModalities,
        outputModalities: model.outputModalities,
        tools: model.tools,
        jsonSchema: model.jsonSchema,
        embeddings: model.embeddings,
        paths: model.paths.map((path) => ({
          provider: path.provider,
          upstreamModel: path.upstreamModel,
          credentialsRef: path.credentialsRef ?? "",
          price: {
            inputNanoPerM: optionalInt64(path.inputNanoPerM),
            outputNanoPerM: optionalInt64(path.outputNanoPerM),
            imageNano: optionalInt64(path.imageNano),
            requestNano: optionalInt64(path.requestNano),
            verified: path.priceVerified,
            source: path.priceSource ?? "",
            ...protoComponents(path.priceComponents as unknown as PriceComponentsJson),
          },
        })),
      })),
    };
    if (generation === this.generation) this.cached = snapshot;
    return snapshot;
  }
}
