// This control-plane replica's own state for GET /admin/health: who it is, how long it has run, whether
// its database answers (and how fast), the catalogue revision it serves, the data planes subscribed to it.
import type { Database } from "../database/connect";
import type { Subscriber, Subscribers } from "./subscribers";

export interface ControlPlaneStateReading {
  replicaId: string;
  version: string;
  startedAt: Date;
  uptimeSeconds: number;
  database: { reachable: boolean; roundTripMs: number | null; error: string | null };
  catalogueRevision: string | null;
  subscribed: Subscriber[];
}

export class ControlPlaneState {
  private readonly startedAt = new Date();

  constructor(
    private readonly identity: { replicaId: string; version: string },
    private readonly database: Pick<Database, "query">,
    private readonly subscribers: Subscribers,
  ) {}

  async read(): Promise<ControlPlaneStateReading> {
    const started = performance.now();
    let database: ControlPlaneStateReading["database"];
    let catalogueRevision: string | null = null;
    try {
      // The round trip of one small query: the catalogue revision the data planes are sent.
      const [row] = await this.database.query<{ revision: string | null }>("SELECT max(id)::text AS revision FROM catalogue_revisions", []);
      catalogueRevision = row?.revision ?? null;
      database = { reachable: true, roundTripMs: Math.round((performance.now() - started) * 10) / 10, error: null };
    } catch (error) {
      database = { reachable: false, roundTripMs: null, error: error instanceof Error ? error.message : String(error) };
    }
    return {
      ...this.identity,
      startedAt: this.startedAt,
      uptimeSeconds: Math.floor((Date.now() - this.startedAt.getTime()) / 1000),
      database,
      catalogueRevision,
      subscribed: this.subscribers.list(),
    };
  }
}
