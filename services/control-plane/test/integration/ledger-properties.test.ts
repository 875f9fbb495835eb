// Property-based test of the ledger state machine (fast-check) against the
// real money functions on PostgreSQL (a fresh database on the machine's server): reserve, settle, release, expiry, top-up,
// budget leases (lease, draw, lease reduce and release), renewals of holds and leases, draws applied
// from a dead data plane's journal (not extending their lease) and duplicate delivery in random order. After every step: each project's
// balance equals the sum of its ledger and is never negative, its held amount
// equals its active holds and never exceeds the balance, no day's debits
// exceed the daily cap, no settle debits more than its hold, and a replay
// returns the first answer. After every run: the rollups equal the ledger (rollup-check.ts).
//
// Fifty lanes advance in lockstep, two per project sharing its request ids, so
// one round of steps is one group-commit batch (carrying two operations per
// project, replays among them) plus one invariant query: at least 100,000
// steps per run in about a minute. Top-ups and the expiry sweep run in their
// own transactions, concurrently with the batches.
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LedgerService } from "../../src/billing/ledger-service";
import { rollupDrift } from "../../src/billing/rollup-check";
import { openDatabase, type Database } from "../../src/database/connect";
import { scratchDatabase, type ScratchDatabase } from "../harness/scratch-database";
import { ADMIN_TOKEN } from "../../src/changes/audit-log";

const LANES = 50;
const LANES_PER_PROJECT = 2;
const STEPS_PER_LANE = 100;
const RUNS = 20;
const HOLD_TTL_SECONDS = 60;
const REQUEST_IDS = 6; // per lane: few, so operations collide and replay

type Command =
  | { kind: "reserve"; request: number; amount: number; minimum: number }
  | { kind: "settle"; request: number; amount: number }
  | { kind: "release"; request: number }
  | { kind: "topup"; key: number; amount: number }
  | { kind: "lease"; lease: number; amount: number; minimum: number }
  | { kind: "draw"; request: number; lease: number; amount: number; hold: number; journal: boolean }
  | { kind: "renew"; request: number; lease: boolean }
  | { kind: "releaseLease"; lease: number }
  | { kind: "reduceLease"; lease: number; keep: number };

const LEASE_IDS = 3; // per project

const command: fc.Arbitrary<Command> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("reserve" as const),
      request: fc.nat(REQUEST_IDS - 1),
      amount: fc.nat(5_000),
      minimum: fc.oneof(fc.constant(0), fc.nat(2_000)), // > 0: a smaller hold is acceptable
    }),
  },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant("settle" as const), request: fc.nat(REQUEST_IDS - 1), amount: fc.nat(8_000) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("release" as const), request: fc.nat(REQUEST_IDS - 1) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("topup" as const), key: fc.nat(3), amount: fc.integer({ min: 1, max: 20_000 }) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("lease" as const),
      lease: fc.nat(LEASE_IDS - 1),
      amount: fc.nat(20_000),
      minimum: fc.nat(1_500),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("draw" as const),
      request: fc.nat(REQUEST_IDS - 1),
      lease: fc.nat(LEASE_IDS - 1),
      amount: fc.nat(3_000),
      hold: fc.nat(2_000),
      journal: fc.boolean(), // applied by the sweeper from a draw journal: the lease's expiry does not move
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant("renew" as const), request: fc.nat(REQUEST_IDS - 1), lease: fc.boolean() }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("releaseLease" as const), lease: fc.nat(LEASE_IDS - 1) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("reduceLease" as const),
      lease: fc.nat(LEASE_IDS - 1),
      keep: fc.integer({ min: 1, max: 5_000 }),
    }),
  },
);

const lane = fc.record({
  dailyCap: fc.option(fc.integer({ min: 1_000, max: 30_000 }), { nil: null }),
  commands: fc.array(command, { minLength: STEPS_PER_LANE, maxLength: STEPS_PER_LANE }),
});

const scenario = fc.record({
  lanes: fc.array(lane, { minLength: LANES, maxLength: LANES }), // a project's cap comes from its first lane
  // Rounds after which the clock jumps past the hold TTL and the sweeper runs.
  expiryRounds: fc.uniqueArray(fc.nat(STEPS_PER_LANE - 1), { maxLength: 8 }),
});

interface InvariantRow {
  id: string;
  balance_nano: bigint;
  held_nano: bigint;
  daily_cap_nano: bigint | null;
  cap_day: Date | null;
  cap_used_nano: bigint;
  ledger_sum: bigint;
  active_sum: bigint;
  max_day_debits: bigint;
  cap_day_usage: bigint;
}

describe("ledger state machine (property-based)", () => {
  let database: Database;
  let clockMs = Date.UTC(2026, 10, 22, 23, 50); // crosses midnight UTC as expiries move time on
  let ledger: LedgerService;
  let stepsChecked = 0;
  const leaseSteps = { granted: 0, drawsDebited: 0, reduced: 0, renewed: 0 }; // so the lease part cannot pass vacuously

  let scratch: ScratchDatabase;

  beforeAll(async () => {
    scratch = await scratchDatabase(`ledger_properties_${process.pid}`);
    database = await openDatabase({ databaseUrl: scratch.url, dataDir: "" });
    ledger = new LedgerService(database, { now: () => new Date(clockMs) }, HOLD_TTL_SECONDS);
  });

  afterAll(async () => {
    await database?.close();
    await scratch?.drop();
  });

  async function checkInvariants(projectIds: string[]): Promise<void> {
    const rows = await database.prisma.$queryRaw<InvariantRow[]>`
      SELECT p.id, p.balance_nano, p.held_nano, p.daily_cap_nano, p.cap_day, p.cap_used_nano,
             (COALESCE((SELECT -sum(amount_nano) FROM ledger_entries l WHERE l.project_id = p.id AND l.kind = 'debit' AND l.day = p.cap_day), 0)
              + COALESCE((SELECT sum(amount_nano) FROM holds h WHERE h.project_id = p.id AND h.status = 'active' AND h.day = p.cap_day), 0))::bigint AS cap_day_usage,
             COALESCE((SELECT sum(amount_nano) FROM ledger_entries l WHERE l.project_id = p.id), 0)::bigint AS ledger_sum,
             COALESCE((SELECT sum(amount_nano) FROM holds h WHERE h.project_id = p.id AND h.status = 'active'), 0)::bigint AS active_sum,
             COALESCE((SELECT max(-day_sum) FROM (SELECT sum(amount_nano) AS day_sum FROM ledger_entries l
                        WHERE l.project_id = p.id AND l.kind = 'debit' GROUP BY l.day) days), 0)::bigint AS max_day_debits
        FROM projects p WHERE p.id = ANY(${projectIds})`;
    expect(rows).toHaveLength(projectIds.length);
    for (const row of rows) {
      expect(row.balance_nano, `${row.id}: balance = sum of ledger`).toBe(row.ledger_sum);
      expect(row.balance_nano >= 0n, `${row.id}: balance never negative`).toBe(true);
      expect(row.held_nano, `${row.id}: held = active holds`).toBe(row.active_sum);
      expect(row.held_nano >= 0n && row.held_nano <= row.balance_nano, `${row.id}: 0 <= held <= balance`).toBe(true);
      if (row.daily_cap_nano !== null)
        expect(row.max_day_debits <= row.daily_cap_nano, `${row.id}: a day's debits within the cap`).toBe(true);
      if (row.cap_day !== null)
        expect(row.cap_used_nano, `${row.id}: cap counter = the cap day's debits and active holds`).toBe(row.cap_day_usage);
    }
  }

  it(`keeps its invariants over ${RUNS * LANES * STEPS_PER_LANE} random steps`, async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(scenario, async ({ lanes, expiryRounds }) => {
        run++;
        const salt = Math.random().toString(36).slice(2, 8);
        const projectIds = Array.from({ length: LANES / LANES_PER_PROJECT }, (_, index) => `prop${run}x${index}x${salt}`);
        const projectOf = (lane: number) => Math.floor(lane / LANES_PER_PROJECT);
        for (const [index, projectId] of projectIds.entries()) {
          const dailyCap = lanes[index * LANES_PER_PROJECT]!.dailyCap;
          await database.prisma.project.create({
            data: { id: projectId, name: "property", dailyCapNano: dailyCap === null ? null : BigInt(dailyCap) },
          });
          await ledger.topUp(projectId, 10_000n, "initial", ADMIN_TOKEN);
        }
        // Per project: first answers per (operation, request), to check replays; holds' amounts, to check settles.
        const firstAnswers = projectIds.map(() => new Map<string, string>());
        const holdAmounts = projectIds.map(() => new Map<number, bigint>());
        const leasesGranted = projectIds.map(() => new Set<number>());
        const leasesClosable = projectIds.map(() => new Set<number>()); // released (or its release asked for) or past an expiry
        const drawAnswers = projectIds.map(() => new Map<number, bigint>());

        for (let round = 0; round < STEPS_PER_LANE; round++) {
          await Promise.all(
            lanes.map(async ({ commands }, index) => {
              const step = commands[round];
              if (!step) return;
              const project = projectOf(index);
              const projectId = projectIds[project]!;
              const answers = firstAnswers[project]!;
              const remember = (key: string, answer: string) => {
                if (answer.startsWith("unknown_request")) return; // nothing recorded: not a replayable answer
                const first = answers.get(key);
                if (first === undefined) answers.set(key, answer);
                else expect(answer, `replay of ${key} in ${projectId}`).toBe(first);
              };
              const requestId = (request: number) => `${projectId}-r${request}`;
              switch (step.kind) {
                case "reserve": {
                  const result = await ledger.reserve({
                    requestId: requestId(step.request),
                    projectId,
                    amountNano: BigInt(step.amount),
                    minAmountNano: BigInt(Math.min(step.minimum, step.amount)),
                    model: "m",
                    accessPath: "p",
                    // Keys, models and splits vary so the rollups' every dimension is exercised (a key with no limits: nothing held for it).
                    ...(step.request % 3 === 0 ? {} : { keyId: `${projectId}-key${step.request % 2}` }),
                  });
                  remember(`reserve ${step.request}`, `${result.outcome} ${result.reservedNano}`);
                  if (result.outcome === "reserved") {
                    const first = holdAmounts[project]!.get(step.request);
                    if (first === undefined) {
                      expect(result.reservedNano <= BigInt(step.amount), "a hold never exceeds the amount asked").toBe(true);
                      holdAmounts[project]!.set(step.request, result.reservedNano);
                    } else {
                      expect(result.reservedNano, "a replayed reserve reports the first hold").toBe(first);
                    }
                  }
                  break;
                }
                case "settle": {
                  const result = await ledger.settle({
                    requestId: requestId(step.request),
                    projectId,
                    amountNano: BigInt(step.amount),
                    model: `m${step.amount % 3}`,
                    accessPath: "p",
                    inputTokens: step.amount % 101,
                    outputTokens: 1,
                    ...(step.amount % 4 === 0 ? {} : { costParts: { input: { units: step.amount % 101, nano: String(step.amount) } } }),
                  });
                  remember(`settle ${step.request}`, `${result.outcome} ${result.debitedNano}`);
                  const hold = holdAmounts[project]!.get(step.request);
                  if (hold !== undefined) expect(result.debitedNano <= hold, "a settle debits at most its hold").toBe(true);
                  break;
                }
                case "release":
                  remember(`release ${step.request}`, await ledger.release(requestId(step.request), projectId));
                  break;
                case "lease": {
                  const result = await ledger.lease({
                    leaseId: `${projectId}-lease${step.lease}`,
                    projectId,
                    amountNano: BigInt(step.amount),
                    minAmountNano: BigInt(step.minimum),
                  });
                  if (result.granted && !leasesGranted[project]!.has(step.lease)) {
                    expect(result.amountNano <= BigInt(step.amount), "a lease never exceeds the amount asked").toBe(true);
                    expect(result.amountNano >= BigInt(Math.max(step.minimum, 1)), "a new lease holds at least its minimum").toBe(true);
                    leasesGranted[project]!.add(step.lease);
                    leaseSteps.granted++;
                  } else if (result.granted) {
                    // A replay: answers with what the lease still holds (draws lower it).
                  } else {
                    // Once released or expired a lease is closed: its replay is no grant. Before that it is never refused.
                    if (leasesGranted[project]!.has(step.lease))
                      expect(leasesClosable[project]!.has(step.lease), "a granted lease's replay is refused only once closed").toBe(true);
                  }
                  break;
                }
                case "draw": {
                  // A lease granted in this same round may be ordered after the draw in the batch.
                  const grantedBefore = leasesGranted[project]!.has(step.lease);
                  const result = await ledger.draw(
                    [
                      {
                        requestId: `${projectId}-d${step.request}`,
                        leaseId: `${projectId}-lease${step.lease}`,
                        projectId,
                        amountNano: BigInt(step.amount),
                        holdNano: BigInt(step.hold),
                        model: "m",
                        accessPath: `p${step.request % 2}`,
                        inputTokens: 1,
                        outputTokens: step.amount % 7,
                        costParts: [
                          { component: "output", units: step.amount % 7, nano: BigInt(step.amount) },
                          { component: "request", units: 1, nano: 0n },
                        ],
                        ...(step.request % 2 === 0 ? { keyId: `${projectId}-key${step.request % 3}` } : {}),
                      },
                    ],
                    { extendLease: !step.journal },
                  );
                  const answer = result[0]!;
                  if (answer.outcome === "settled") {
                    const first = drawAnswers[project]!.get(step.request);
                    if (first === undefined) {
                      expect(
                        answer.debitedNano <= BigInt(Math.min(step.amount, step.hold)),
                        "a draw debits at most its cost and its share",
                      ).toBe(true);
                      drawAnswers[project]!.set(step.request, answer.debitedNano);
                      if (answer.debitedNano > 0n) leaseSteps.drawsDebited++;
                    } else {
                      expect(answer.debitedNano, "a replayed draw reports the first debit").toBe(first);
                    }
                  } else {
                    expect(grantedBefore, "a granted lease is never unknown").toBe(false);
                  }
                  break;
                }
                case "renew": {
                  // A hold or a lease: moves only the expiry of an active one, never money (the invariants check that).
                  const id = step.lease ? `${projectId}-lease${step.request % LEASE_IDS}` : requestId(step.request);
                  const [renewed] = await ledger.renew([{ requestId: id, projectId }]);
                  const [hold] = await database.query<{ status: string; expires_at: Date }>(
                    "SELECT status::text, expires_at FROM holds WHERE request_id = $1",
                    [id],
                  );
                  if (renewed && hold?.status === "active")
                    expect(hold.expires_at.getTime() >= clockMs + HOLD_TTL_SECONDS * 1000, "a renewed hold expires a TTL from now").toBe(
                      true,
                    );
                  if (!hold) expect(renewed, "an unknown hold is not renewed").toBe(false);
                  if (renewed) leaseSteps.renewed++;
                  break;
                }
                case "releaseLease": {
                  const grantedBefore = leasesGranted[project]!.has(step.lease);
                  leasesClosable[project]!.add(step.lease);
                  const outcome = await ledger.release(`${projectId}-lease${step.lease}`, projectId);
                  if (grantedBefore) expect(outcome, "a granted lease's release").toBe("released");
                  else expect(["released", "unknown_request"], "a lease release").toContain(outcome);
                  break;
                }
                case "reduceLease": {
                  const leaseId = `${projectId}-lease${step.lease}`;
                  const grantedBefore = leasesGranted[project]!.has(step.lease);
                  const outcome = await ledger.release(leaseId, projectId, BigInt(step.keep));
                  if (grantedBefore && !leasesClosable[project]!.has(step.lease))
                    expect(outcome, "an active lease's reduce").toBe("reduced");
                  else expect(["reduced", "released", "unknown_request"], "a lease reduce").toContain(outcome);
                  if (outcome === "reduced") {
                    leaseSteps.reduced++;
                    // Draws in the same batch only lower it further; nothing raises it.
                    const [hold] = await database.query<{ amount_nano: string; status: string }>(
                      "SELECT amount_nano::text, status FROM holds WHERE request_id = $1",
                      [leaseId],
                    );
                    expect(BigInt(hold!.amount_nano) <= BigInt(step.keep), "a reduced lease holds at most what it keeps").toBe(true);
                  }
                  break;
                }
                case "topup": {
                  try {
                    const result = await ledger.topUp(projectId, BigInt(step.amount), `key${step.key}`, ADMIN_TOKEN);
                    remember(`topup ${step.key}`, String(result.entryId));
                  } catch (error) {
                    // The key was used with another amount: refused, crediting nothing (the invariants check the balance).
                    expect(error, "a top-up refusal").toMatchObject({ code: "conflict" });
                    const [first] = await database.query<{ amount_nano: string }>(
                      "SELECT amount_nano::text FROM ledger_entries WHERE project_id = $1 AND idempotency_key = $2",
                      [projectId, `key${step.key}`],
                    );
                    expect(first!.amount_nano, "a conflict is a key used with another amount").not.toBe(String(step.amount));
                  }
                  break;
                }
              }
            }),
          );
          if (expiryRounds.includes(round)) {
            clockMs += (HOLD_TTL_SECONDS + 1) * 1000;
            await ledger.expireHolds(10_000);
            for (const [project, granted] of leasesGranted.entries()) for (const lease of granted) leasesClosable[project]!.add(lease);
          }
          await checkInvariants(projectIds);
          stepsChecked += lanes.length;
        }
        // The rollups equal the ledger after every run (a full scan: once a run, not once a round).
        expect(await rollupDrift(database), "rollups = ledger").toEqual([]);
      }),
      { numRuns: RUNS, seed: Number(process.env.PROPERTY_SEED ?? Date.now() % 2 ** 31), endOnFailure: true },
    );
    expect(stepsChecked).toBeGreaterThanOrEqual(100_000);
    expect(leaseSteps.granted, "leases granted").toBeGreaterThan(500);
    expect(leaseSteps.drawsDebited, "draws that debited").toBeGreaterThan(500);
    expect(leaseSteps.reduced, "leases reduced").toBeGreaterThan(100);
    expect(leaseSteps.renewed, "holds and leases renewed").toBeGreaterThan(100);
  }, 600_000);
});
