// Fans changes out to this replica's subscribed data planes. Writers append a
// row to change_events in the same transaction as the change; every control
// plane replica polls the table, so a change made through any replica reaches
// the data planes subscribed to all of them.
//
// The poll is plain SQL (like the money batches) and asks only for rows it has
// not delivered: every replica polls every 200 ms by default, busy or idle (docs/benchmark.md).
import type { Database } from "../database/connect";
import type { Prisma } from "../generated/prisma/client";

export type Change =
  | { kind: "catalogue"; revision: string }
  | { kind: "key_revoked"; projectId: string; keyId: string }
  | { kind: "key_changed"; projectId: string; keyId: string }
  | { kind: "project_changed"; projectId: string; rpmLimit: number | null };

type Listener = (change: Change) => void;

/**
 * Ids are assigned at insert but become visible at commit, so a smaller id can
 * appear after a larger one was read. Each poll re-reads this many ids below
 * the newest seen and skips those already delivered.
 */
const REREAD_WINDOW = 100n;

export function changeEventRow(change: Change): Prisma.ChangeEventCreateInput {
  const { kind, ...payload } = change;
  return { kind, payload };
}

export class ChangeFeed {
  private lastId = 0n;
  private readonly delivered = new Set<bigint>();
  private readonly listeners = new Set<Listener>();
  private timer: NodeJS.Timeout | undefined;
  private polling: Promise<void> | undefined;

  constructor(
    private readonly database: Pick<Database, "query">,
    private readonly intervalMs: number,
    private readonly onError: (error: unknown) => void,
  ) {}

  /**
   * Starts after the events committed by now (subscribers get full state on connect). Those within the
   * re-read window are marked delivered rather than cut off by id: one whose id is below the newest
   * but whose transaction commits after this start is delivered when it does.
   */
  async start(): Promise<void> {
    // One statement, one snapshot: the newest event and those within the window below it.
    const visible = await this.database.query<{ id: string }>(
      "SELECT id::text AS id FROM change_events WHERE id > (SELECT coalesce(max(id), 0) FROM change_events) - $1::bigint",
      [REREAD_WINDOW.toString()],
    );
    for (const row of visible) {
      const id = BigInt(row.id);
      this.delivered.add(id);
      if (id > this.lastId) this.lastId = id;
    }
    this.timer = setInterval(() => void this.poll(), this.intervalMs);
    this.timer.unref();
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Delivers new events now (also called right after a local write, to skip the poll delay). */
  poll(): Promise<void> {
    this.polling ??= this.readNew()
      .catch(this.onError)
      .finally(() => (this.polling = undefined));
    return this.polling;
  }

  private async readNew(): Promise<void> {
    const floor = this.lastId > REREAD_WINDOW ? this.lastId - REREAD_WINDOW : 0n;
    const rows = await this.database.query<{ id: string; kind: string; payload: object }>(
      "SELECT id::text AS id, kind, payload FROM change_events WHERE id > $1::bigint AND NOT (id = ANY($2::bigint[])) ORDER BY id LIMIT 1000",
      [floor.toString(), [...this.delivered].map(String)],
    );
    for (const row of rows) {
      const id = BigInt(row.id);
      this.delivered.add(id); // seen: not asked for again
      if (id > this.lastId) this.lastId = id;
      const change = { kind: row.kind, ...row.payload } as Change;
      for (const listener of this.listeners) listener(change);
    }
    for (const id of this.delivered) if (id <= this.lastId - REREAD_WINDOW) this.delivered.delete(id);
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.polling;
    this.listeners.clear();
  }
}
