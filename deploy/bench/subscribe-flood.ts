// What Subscribe calls without the internal token cost a control plane (issue 33, item 11): --streams
// (20,000) of them, opened together over --connections (20) HTTP/2 connections against a control plane on
// PGlite; how many are answered with a status (within 8 s of their own start, and within --wait seconds,
// 60, after the last was opened), with which status, and how far the control plane's RSS (read from
// /proc) grew from idle: at the end and at its sampled peak.
// Before the fix they were never answered (`call.destroy` sends no status) and each one held memory.
//
//   pnpm bench:subscribe-flood   (tsx deploy/bench/subscribe-flood.ts)
//   options: --streams 20000 --connections 20 --wait 60 --out <file>
import * as grpc from "@grpc/grpc-js";
import { type ControlPlaneClient, ControlPlaneClientConstructor } from "../../proto/src/index";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { repositoryRoot, startService } from "../local/service-process";
import { RssSampler, rssBytes } from "./process-stats";
import { writeResults } from "./results-file";

const { values: args } = parseArgs({
  options: {
    streams: { type: "string", default: "20000" },
    connections: { type: "string", default: "20" },
    wait: { type: "string", default: "60" },
    out: { type: "string", default: path.join(repositoryRoot, "deploy/bench/results/latest-subscribe-flood.json") },
  },
});
const streams = Number(args.streams);
const connections = Number(args.connections);
const waitMs = Number(args.wait) * 1000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;

const dataDir = mkdtempSync(path.join(os.tmpdir(), "subscribe-flood-"));
const controlPlane = await startService(
  "control-plane",
  {
    GATEWAY_DATA_DIR: dataDir,
    DATABASE_URL: "",
    GATEWAY_INTERNAL_TOKEN: randomBytes(32).toString("base64url"),
    GATEWAY_ADMIN_TOKEN: randomBytes(32).toString("base64url"),
    CONTROL_PLANE_GRPC_PORT: "0",
    CONTROL_PLANE_ADMIN_PORT: "0",
    METRICS_PORT: "0",
    LOG_LEVEL: "warn",
  },
  { timeoutMs: 300_000 },
); // PGlite's first migrations are slow on a busy machine
const pid = controlPlane.child.pid!;
const clients: ControlPlaneClient[] = [];
try {
  await sleep(2000); // start-up garbage collected, timers settled
  const idleRss = rssBytes(pid);
  // One connection per client: a channel of its own (grpc-js shares connections between channels otherwise).
  for (let index = 0; index < connections; index++)
    clients.push(
      new ControlPlaneClientConstructor(controlPlane.ready.grpc!, grpc.credentials.createInsecure(), {
        "grpc.use_local_subchannel_pool": 1,
      }),
    );
  await Promise.all(
    clients.map(
      (client) =>
        new Promise<void>((resolve, reject) => client.waitForReady(Date.now() + 10_000, (error) => (error ? reject(error) : resolve()))),
    ),
  );

  const sampler = new RssSampler(pid, 100);
  const statuses = new Map<string, number>();
  /** Per stream: milliseconds from its creation to its status. */
  const answerMs: number[] = [];
  const calls: grpc.ClientReadableStream<unknown>[] = [];
  // Created in batches, so that the client's own event loop keeps reading answers meanwhile.
  for (let index = 0; index < streams; index++) {
    const created = performance.now();
    // No authorization metadata: what anyone who reaches the port can send.
    const call = clients[index % connections]!.Subscribe({ replicaId: `flood-${index}` }, new grpc.Metadata());
    call.on("data", () => {});
    call.on("error", () => {});
    call.on("status", (status: grpc.StatusObject) => {
      const name = grpc.status[status.code] ?? String(status.code);
      statuses.set(name, (statuses.get(name) ?? 0) + 1);
      answerMs.push(performance.now() - created);
    });
    calls.push(call);
    if (index % 500 === 499) await new Promise((resolve) => setImmediate(resolve));
  }
  // Then up to --wait seconds for the answers (all of them, or none before the fix).
  const deadline = performance.now() + waitMs;
  while (answerMs.length < streams && performance.now() < deadline) await sleep(100);
  const endRss = rssBytes(pid);
  const peakRss = sampler.stop();
  answerMs.sort((a, b) => a - b);
  const quantile = (q: number) =>
    answerMs.length > 0 ? Math.round(answerMs[Math.min(answerMs.length - 1, Math.floor(q * answerMs.length))]!) : null;

  const output = {
    date: new Date().toISOString(),
    commit: process.env.GIT_COMMIT ?? null,
    streams,
    connections,
    waitSeconds: waitMs / 1000,
    answered: answerMs.length,
    answeredWithin8s: answerMs.filter((ms) => ms <= 8000).length,
    statuses: Object.fromEntries(statuses),
    answerMs: { p50: quantile(0.5), p99: quantile(0.99), max: answerMs.length > 0 ? Math.round(answerMs.at(-1)!) : null },
    controlPlaneRssMb: {
      idle: mb(idleRss),
      end: mb(endRss),
      peak: mb(peakRss),
      growthAtEnd: mb(endRss - idleRss),
      peakGrowth: mb(peakRss - idleRss),
    },
  };
  console.log(JSON.stringify(output, null, 2));
  writeResults(args.out!, output);
  for (const call of calls) call.cancel();
} finally {
  for (const client of clients) client.close();
  await controlPlane.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
