// The change feed against PostgreSQL (a fresh database on the machine's server):
// an event id is taken at insert but visible at commit, so a later id can be read
// before an earlier one. The feed delivers the earlier one when its transaction
// commits, each event once, and never the events that existed before it started (but one whose
// transaction was still open then, when it commits).
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChangeFeed, type Change } from "../../src/changes/change-feed";
import { openDatabase, type Database } from "../../src/database/connect";
import { scratchDatabase, type ScratchDatabase } from "../harness/scratch-database";

describe("change feed on PostgreSQL", () => {
  let scratch: ScratchDatabase;
  let database: Database;

  beforeAll(async () => {
    scratch = await scratchDatabase(`change_feed_${process.pid}`);
    database = await openDatabase({ databaseUrl: scratch.url, dataDir: "" });
  });

  afterAll(async () => {
    await database?.close();
    await scratch?.drop();
  });

  const insert = (client: pg.Client, keyId: string) =>
    client.query("INSERT INTO change_events (kind, payload) VALUES ('key_revoked', $1::jsonb) RETURNING id::text AS id", [
      JSON.stringify({ projectId: "p", keyId }),
    ]);

  /** Two connections of their own (`early` commits at once, `slow` holds a transaction open), closed after `work`. */
  async function withClients(work: (early: pg.Client, slow: pg.Client) => Promise<void>): Promise<void> {
    const early = new pg.Client({ connectionString: scratch.url });
    const slow = new pg.Client({ connectionString: scratch.url });
    await Promise.all([early.connect(), slow.connect()]);
    try {
      await work(early, slow);
    } finally {
      await Promise.all([early.end(), slow.end()]);
    }
  }

  /** A started feed, and the key ids (or kinds) it delivers, in order. */
  async function startedFeed(): Promise<{ feed: ChangeFeed; delivered: string[] }> {
    const feed = new ChangeFeed(database, 60_000, (error) => {
      throw error;
    });
    await feed.start();
    const delivered: string[] = [];
    feed.subscribe((change: Change) => delivered.push(change.kind === "key_revoked" ? change.keyId : change.kind));
    return { feed, delivered };
  }

  it("delivers an event whose transaction commits after a later one was read, each event once, none from before it started", () =>
    withClients(async (early, slow) => {
      await insert(early, "before-start");
      const { feed, delivered } = await startedFeed();

      await slow.query("BEGIN");
      const { rows: slowRows } = await insert(slow, "committed-late"); // its id is taken now, visible at commit
      const { rows: fastRows } = await insert(early, "committed-first");
      expect(BigInt(fastRows[0].id)).toBeGreaterThan(BigInt(slowRows[0].id));

      await feed.poll();
      expect(delivered).toEqual(["committed-first"]);
      await slow.query("COMMIT");
      await feed.poll();
      expect(delivered).toEqual(["committed-first", "committed-late"]);
      await feed.poll();
      await insert(early, "next");
      await feed.poll();
      expect(delivered).toEqual(["committed-first", "committed-late", "next"]);
      await feed.stop();
    }));

  it("delivers an event whose transaction was still open when the feed started, though a later one existed before", () =>
    withClients(async (early, slow) => {
      await slow.query("BEGIN");
      await insert(slow, "open-at-start");
      await insert(early, "existed-at-start");
      const { feed, delivered } = await startedFeed();
      await feed.poll();
      expect(delivered).toEqual([]);
      await slow.query("COMMIT");
      await feed.poll();
      expect(delivered).toEqual(["open-at-start"]);
      await feed.stop();
    }));
});
