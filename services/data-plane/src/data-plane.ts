// Composition root of the data plane: the control-plane client and its
// subscription, caches, limits, billing, providers, the engine and the HTTP
// app. Each part gets what it uses; only server.ts imports this file.
import { startMetricsServer } from "@gateway/proto";
import { startTracing } from "@gateway/proto/tracing";
import type { FastifyInstance } from "fastify";
import { buildDataPlaneApp } from "./app/build-app";
import { KeyCache } from "./auth/key-cache";
import { RedisDrawJournal } from "./billing/draw-journal";
import { LocalDrawJournal } from "./billing/local-draw-journal";
import { RequestBilling } from "./billing/request-billing";
import { buildSnapshot, type CatalogueSnapshot } from "./catalogue/catalogue-snapshot";
import type { DataPlaneConfig } from "./config";
import { controlPlaneCredentials } from "./control-plane/control-plane-tls";
import { ControlPlaneClientWrapper } from "./control-plane/control-plane-client";
import { Engine } from "./engine/engine";
import { healthAnswer, type HealthSources } from "./health/health-state";
import { StateReporter } from "./health/state-reporter";
import { LocalRateLimiter } from "./limits/local-rate-limiter";
import type { RateLimiter } from "./limits/rate-limiter";
import { RedisRateLimiter } from "./limits/redis-rate-limiter";
import { createMetrics } from "./metrics";
import { buildKeyPools } from "./providers/key-pool/key-pool";
import { UpstreamProvider } from "./providers/upstream-provider";
import { LocalPins, type PinStore, RedisPins } from "./routing/affinity-pins";
import { PathHealth } from "./routing/path-health";
import { unsetCredentials } from "./routing/route-request";
import { UpstreamHttp } from "./upstream/upstream-http";

export interface RunningDataPlane {
  url: string;
  /** The scrape listener's base URL (GET /metrics), on its own port. */
  metricsUrl: string;
  app: FastifyInstance;
  /** Resolves once the first catalogue arrived (or after `timeoutMs`). */
  catalogueReady(timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;
}

export async function startDataPlane(config: DataPlaneConfig): Promise<RunningDataPlane> {
  let app: FastifyInstance | undefined;
  const tracing = await startTracing(config.tracing);
  const startedAtMs = Date.now();
  // The app's logger exists once the app does; parts built before it log through this.
  const log = {
    info: (object: object, message: string) => app?.log.info(object, message),
    warn: (object: object, message: string) => app?.log.warn(object, message),
    error: (object: object, message: string) => app?.log.error(object, message),
  };
  const controlPlane = new ControlPlaneClientWrapper(
    config.controlPlaneAddress,
    config.internalToken,
    config.controlPlaneDeadlineMs,
    controlPlaneCredentials(config, (message) => log.error({ tls: message }, "TLS files not reloaded")),
  );
  const http = new UpstreamHttp(config.upstream);
  const providers = new Map(
    [...config.providers.values()].map((provider) => [
      provider.name,
      new UpstreamProvider(provider, http, (fields, message) => log.warn(fields, message)),
    ]),
  );
  const keys = new KeyCache(controlPlane, config.keyCacheTtlSeconds, config.controlPlaneGraceMs, config.authFailuresPerMinute);
  // With Redis, an answered leased debit is kept there before its answer leaves, or in a local file
  // while Redis is away (docs/money.md, "A killed data plane").
  const journal = config.redisUrl
    ? new RedisDrawJournal(
        config.redisUrl,
        config.drawJournalDir ? new LocalDrawJournal({ dir: config.drawJournalDir }) : undefined,
        (open) =>
          log.warn(
            { open },
            open
              ? "Redis failed or late: leased debits go to the draw journal's local file until a probe sees it answer"
              : "draw journal back on Redis",
          ),
      )
    : undefined;
  const billing = new RequestBilling(controlPlane, log, { ...config.leases, replicaId: config.replicaId }, journal);
  const sharedLimiter = config.redisUrl
    ? new RedisRateLimiter(config.redisUrl, config.replicaId, config.rateLimitWindowMs, (degraded) =>
        log.warn({ degraded }, degraded ? "Redis unreachable: per-minute limit falls back to a local share" : "Redis reachable again"),
      )
    : undefined;
  const rateLimiter: RateLimiter = sharedLimiter ?? new LocalRateLimiter(config.rateLimitWindowMs);
  // A key's per-minute limits are the account's: each data plane takes its share of the replicas the limiter sees.
  const keyPools = buildKeyPools(config.credentials, {
    now: Date.now,
    ...config.keyPool,
    replicas: () => sharedLimiter?.replicasSeen ?? 1,
    counted: (pool, key, outcome) => metrics.providerKeyRequests.series(pool, key, outcome).inc(),
    refusedLog: (fields) => log.warn(fields, "provider key refused by its upstream: out of its pool until retry_at"),
  });
  const health = new PathHealth(config.pathHealth);
  // Shared by every data plane through Redis when there is one; else this data plane's own.
  const pins: PinStore = config.redisUrl ? new RedisPins(config.redisUrl) : new LocalPins();
  const metrics = createMetrics({ rateLimiter, billing, health, controlPlane, keyPools }, { projectLabels: config.metricsProjectLabels });
  controlPlane.observe = (method, seconds, outcome) => metrics.controlPlaneCalls.series(method, outcome).observe(seconds);
  keys.onLookup = (result) => metrics.keyCacheLookups.series(result).inc();
  keys.onFailure = (outcome) => metrics.authFailures.series(outcome).inc();

  let catalogue: CatalogueSnapshot | undefined;
  let draining = false;
  const currentCatalogue = () => catalogue;
  const engine = new Engine({
    catalogue: currentCatalogue,
    providers,
    credentials: keyPools,
    health,
    billing,
    metrics,
    pins,
    affinity: config.affinity,
    settings: {
      ...config.upstream,
      sseKeepAliveMs: config.sseKeepAliveMs,
      clientDisconnectDrainMs: config.clientDisconnectDrainMs,
    },
  });
  const healthSources: HealthSources = {
    draining: () => draining,
    catalogue: currentCatalogue,
    controlPlane,
    controlPlaneGraceMs: config.controlPlaneGraceMs,
    rateLimiter,
    drawJournal: journal ?? { mode: "none" },
    circuitViews: () => health.circuitViews(),
    keyPools: () => [...keyPools.values()].map((pool) => pool.view()),
  };
  const running = buildDataPlaneApp({
    logLevel: config.logLevel,
    bodyLimitBytes: config.bodyLimitBytes,
    rawFrontDoor: config.rawFrontDoor,
    requestTimeouts: config.requestTimeouts,
    trustedProxies: config.trustedProxies,
    maxInFlight: config.maxInFlight,
    metrics,
    keys,
    limits: { limiter: rateLimiter, defaultRpmLimit: config.defaultRpmLimit },
    health: healthSources,
    catalogue: currentCatalogue,
    engine,
    tracing,
  });
  app = running;

  let resolveFirstCatalogue: () => void = () => {};
  const firstCatalogue = new Promise<void>((resolve) => {
    resolveFirstCatalogue = resolve;
  });
  controlPlane.subscribe(
    config.replicaId,
    (event) => {
      if (event.catalogue) {
        catalogue = buildSnapshot(event.catalogue);
        // Tenants are told only that a model "has no configured access path"; which variable is missing is the operator's.
        const unset = unsetCredentials({ providers, credentials: keyPools }, catalogue);
        if (unset.length > 0)
          log.warn(
            { revision: catalogue.revision, unset_credentials: unset },
            "catalogue paths name credentials not set on this data plane: their models answer 'no configured access path'",
          );
        resolveFirstCatalogue();
      } else if (event.keyRevoked) {
        keys.revokeKey(event.keyRevoked.keyId);
      } else if (event.keyChanged) {
        keys.keyChanged(event.keyChanged.keyId);
      } else if (event.projectChanged) {
        keys.projectChanged(event.projectChanged.projectId, event.projectChanged.limits?.rpmLimit ?? null);
        billing.leases.projectChanged(event.projectChanged.projectId);
      }
    },
    (error) => log.warn({ err: error }, "control-plane subscription error"),
  );

  const reporter = new StateReporter(
    healthSources,
    (report) => controlPlane.reportState(report),
    { replicaId: config.replicaId, version: config.version, startedAtMs, intervalMs: config.reportIntervalMs },
    log,
  );

  const url = await running.listen({ host: config.host, port: config.port });
  // GET /health there carries the details the public /health keeps from anonymous callers.
  const metricsServer = await startMetricsServer(metrics.registry, config.host, config.metricsPort, () =>
    healthAnswer(healthSources, true),
  ).catch(async (error: unknown) => {
    await running.close();
    throw error;
  });
  reporter.start();
  // What a predecessor on the journal's directory answered while Redis was away and may not have drawn (killed): drawn now.
  const recovered = billing.replayRecovered();
  if (recovered > 0)
    log.warn(
      { entries: recovered, dir: config.drawJournalDir },
      "draw journal: drawing what the previous process on this directory answered",
    );
  return {
    url,
    metricsUrl: metricsServer.url,
    app: running,
    catalogueReady: (timeoutMs) =>
      Promise.race([
        firstCatalogue.then(() => true),
        new Promise<boolean>((resolve) => setTimeout(() => resolve(false), timeoutMs).unref()),
      ]),
    close: async () => {
      draining = true;
      void reporter.tick(); // the control plane sees "draining" at once, not at the next tick
      // Readiness goes first: /health says "draining" while traffic still flows, so load balancers
      // take this replica out before it stops accepting.
      if (config.shutdownDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, config.shutdownDelayMs));
      // Stop accepting; in-flight requests and streams get the drain time, then their sockets are cut.
      // A cut stream settles after its disconnect drain: the billing flush waits for that.
      const cut = setTimeout(() => running.server.closeAllConnections(), config.drainTimeoutMs);
      // A keep-alive connection that finishes its last response after close began would otherwise stay
      // open for the keep-alive timeout and hold the process: close connections as they go idle.
      const idle = setInterval(() => running.server.closeIdleConnections(), 200);
      await running.close();
      clearInterval(idle);
      clearTimeout(cut);
      await billing.flush(config.drainTimeoutMs + config.clientDisconnectDrainMs);
      reporter.stop();
      controlPlane.close();
      for (const provider of providers.values()) provider.close();
      await http.close(config.clientDisconnectDrainMs + 1000);
      await rateLimiter.close();
      await journal?.close();
      await pins.close();
      await tracing.shutdown(); // the spans of the last requests are exported
      // Last: a drain is watched through gateway_billing_pending and gateway_draws_under_way until the end.
      await metricsServer.close();
    },
  };
}
