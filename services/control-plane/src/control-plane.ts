// Composition root of the control plane: database, services, gRPC server,
// admin API, background work. `startControlPlane` listens; tests and the
// local launcher call it with ports 0.
import { CertificateFiles, startMetricsServer, type RunningMetricsServer } from "@gateway/proto";
import { startTracing } from "@gateway/proto/tracing";
import type { FastifyInstance } from "fastify";
import { buildAdminApp } from "./admin/admin-app";
import { DrawJournalReconciler } from "./billing/draw-journal-reconciler";
import { HoldSweeper } from "./billing/hold-sweeper";
import { LedgerService } from "./billing/ledger-service";
import { CatalogueService } from "./catalogue/catalogue-service";
import { loadDefaultCatalogue } from "./catalogue/load-default-catalogue";
import { AuditLog } from "./changes/audit-log";
import { ChangeFeed } from "./changes/change-feed";
import { offsetClock } from "./clock";
import type { ControlPlaneConfig } from "./config";
import type { ControlPlaneServices } from "./control-plane-services";
import { openDatabase, type Database } from "./database/connect";
import { ControlPlaneState } from "./health/control-plane-state";
import { DataPlaneReports } from "./health/data-plane-reports";
import { Subscribers } from "./health/subscribers";
import { KeyService } from "./keys/key-service";
import { createMetrics } from "./metrics";
import { ProjectService } from "./projects/project-service";
import { startGrpcServer, type RunningGrpcServer } from "./rpc/grpc-server";
import { grpcServerCredentials } from "./rpc/grpc-tls";
import type { Server as TlsServer } from "node:tls";

export interface RunningControlPlane {
  grpcAddress: string;
  adminUrl: string;
  /** The scrape listener's base URL (GET /metrics), on its own port. */
  metricsUrl: string;
  database: Database;
  services: ControlPlaneServices;
  /** Stops accepting, lets in-flight calls finish, closes the database. */
  close(): Promise<void>;
}

export async function startControlPlane(config: ControlPlaneConfig): Promise<RunningControlPlane> {
  // TLS files first: a missing or mismatched one stops the start before anything is opened.
  const logTlsProblem = (message: string) => admin?.log.error({ tls: message }, "TLS files not reloaded");
  const adminCertificates =
    config.adminTls &&
    new CertificateFiles({ ...config.adminTls, refreshIntervalMs: config.tlsReloadIntervalMs, onProblem: logTlsProblem });
  const grpcCredentials = grpcServerCredentials(config, logTlsProblem);
  const tracing = await startTracing(config.tracing);
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  let ready = false;
  let admin: FastifyInstance | undefined;
  const logError = (error: unknown) => admin?.log.error({ err: error }, "background task failed");

  const clock = offsetClock(config.clockOffsetMs);
  const changes = new ChangeFeed(database, config.changePollIntervalMs, logError);
  const ledger = new LedgerService(database, clock, config.holdTtlSeconds);
  const keys = new KeyService(database.prisma, changes, clock);
  const subscribers = new Subscribers();
  const services: ControlPlaneServices = {
    projects: new ProjectService(database.prisma, changes),
    keys,
    ledger,
    catalogue: new CatalogueService(database.prisma, changes),
    changes,
    sweeper: new HoldSweeper(
      ledger,
      config.holdSweepIntervalMs,
      logError,
      config.redisUrl
        ? new DrawJournalReconciler(config.redisUrl, ledger, {
            warn: (object, message) => admin?.log.warn(object, message),
            error: (object, message) => admin?.log.error(object, message),
          })
        : undefined,
      keys,
    ),
    reports: new DataPlaneReports(database, config.reportRetentionMs, logError),
    controlPlaneState: new ControlPlaneState({ replicaId: config.replicaId, version: config.version }, database, subscribers),
    subscribers,
    auditLog: new AuditLog(database.prisma),
  };

  await changes.start();
  if (await services.catalogue.isEmpty()) {
    // Another replica may be loading it at this moment: the load takes a lock and keeps what it finds.
    await loadDefaultCatalogue(services.catalogue, config.defaultCatalogueFile, undefined, { onlyIfEmpty: true });
  }
  services.sweeper.start();
  services.reports.start();

  const metrics = createMetrics(services);
  const initialIdentity = adminCertificates?.currentIdentity;
  admin = buildAdminApp({
    adminToken: config.adminToken,
    services,
    isReady: () => ready,
    logLevel: config.logLevel,
    consoleDir: config.consoleDir,
    timeouts: { headersMs: config.adminHeadersTimeoutMs, requestMs: config.adminRequestTimeoutMs },
    tls: initialIdentity && tlsIdentity(initialIdentity),
  });
  // A changed certificate serves the next connections (Node's setSecureContext); open ones keep theirs.
  // The provider tells its current pair at once too: the server was built with that one.
  const adminServer = admin.server as unknown as TlsServer;
  const reloadAdminCertificate = (update: CertificatePair | null) => {
    if (update && update !== initialIdentity) adminServer.setSecureContext(tlsIdentity(update));
  };
  adminCertificates?.addIdentityCertificateListener(reloadAdminCertificate);
  const closeAdmin = async () => {
    adminCertificates?.removeIdentityCertificateListener(reloadAdminCertificate);
    await admin.close();
  };
  // Each data-plane call: a latency sample, and a debug line carrying the data plane's request id
  // (the hold's id), so one request can be followed across both planes' logs.
  const onCall = (method: string, seconds: number, outcome: "ok" | "error", request: { requestId?: string; projectId?: string }) => {
    metrics.grpcCalls.observe({ method, outcome }, seconds);
    admin?.log.debug(
      { method, outcome, ms: Math.round(seconds * 1000), reqId: request.requestId, project: request.projectId },
      "grpc call",
    );
  };
  const adminUrl = await admin.listen({ host: config.host, port: config.adminPort });
  let metricsServer: RunningMetricsServer;
  let grpcServer: RunningGrpcServer;
  try {
    metricsServer = await startMetricsServer(metrics.registry, config.host, config.metricsPort);
  } catch (error) {
    await closeAdmin();
    throw error;
  }
  try {
    grpcServer = await startGrpcServer(
      {
        internalToken: config.internalToken,
        keyCacheTtlSeconds: config.keyCacheTtlSeconds,
        maxSubscribers: config.maxSubscribers,
        replicaId: config.replicaId,
        ...services,
        onError: logError,
        onCall,
        tracing,
      },
      config.host,
      config.grpcPort,
      grpcCredentials,
    );
  } catch (error) {
    await closeAdmin();
    await metricsServer.close();
    throw error;
  }
  ready = true;

  return {
    grpcAddress: `${config.host}:${grpcServer.port}`,
    adminUrl,
    metricsUrl: metricsServer.url,
    database,
    services,
    close: async () => {
      ready = false;
      await grpcServer.shutdown(config.drainTimeoutMs);
      // Calls cut by a forced shutdown may have money batches still being written: let them commit.
      await Promise.race([services.ledger.batcher.idle(), new Promise((resolve) => setTimeout(resolve, 10_000).unref())]);
      await closeAdmin();
      await metricsServer.close();
      await services.sweeper.stop();
      services.reports.stop();
      await changes.stop();
      await database.close();
      await tracing.shutdown(); // the last calls' spans are exported
    },
  };
}

type CertificatePair = { certificate: Buffer; privateKey: Buffer };

/** A certificate pair as Node's TLS options name it. */
const tlsIdentity = (pair: CertificatePair) => ({ cert: pair.certificate, key: pair.privateKey });
