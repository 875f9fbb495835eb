// Composition root of the data plane: control-plane client and subscription,
// caches, providers, the HTTP app. `startDataPlane` listens.
import type { FastifyInstance } from "fastify";
import { buildDataPlaneApp } from "./app";
import { KeyCache } from "./auth/key-cache";
import { RequestBilling } from "./billing/request-billing";
import { buildSnapshot } from "./catalogue/catalogue-snapshot";
import type { DataPlaneConfig } from "./config";
import { ControlPlaneClientWrapper } from "./control-plane/control-plane-client";
import type { Gateway } from "./gateway";
import { LocalRateLimiter } from "./limits/local-rate-limiter";
import { RedisRateLimiter } from "./limits/redis-rate-limiter";
import { UpstreamProvider } from "./providers/upstream-provider";
import { createMetrics } from "./metrics";
import { PathHealth } from "./routing/path-health";
import { UpstreamHttp } from "./upstream/upstream-http";

export interface RunningDataPlane {
  url: string;
  app: FastifyInstance;
  gateway: Gateway;
  /** Resolves once the first catalogue arrived (or after `timeoutMs`). */
  catalogueReady(timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;
}

export async function startDataPlane(config: DataPlaneConfig): Promise<RunningDataPlane> {
  const controlPlane = new ControlPlaneClientWrapper(config.controlPlaneAddress, config.internalToken, config.controlPlaneDeadlineMs);
  const http = new UpstreamHttp(config.upstream);
  const providers = new Map([...config.providers.values()].map((provider) => [provider.name, new UpstreamProvider(provider, http)]));

  let app: FastifyInstance | undefined;
  const gatewayLog = {
    warn: (...args: unknown[]) => app?.log.warn(...(args as [object, string])),
    error: (...args: unknown[]) => app?.log.error(...(args as [object, string])),
  };
  const gateway: Gateway = {
    config,
    controlPlane,
    keys: new KeyCache(controlPlane, config.keyCacheTtlSeconds, config.controlPlaneGraceMs),
    billing: new RequestBilling(controlPlane, gatewayLog as never, { ...config.leases, replicaId: config.replicaId }),
    catalogue: { current: undefined },
    providers,
    rateLimiter: config.redisUrl
      ? new RedisRateLimiter(config.redisUrl, config.replicaId, config.rateLimitWindowMs, (degraded) =>
          app?.log.warn(
            { degraded },
            degraded ? "Redis unreachable: per-minute limit falls back to a local share" : "Redis reachable again",
          ),
        )
      : new LocalRateLimiter(config.rateLimitWindowMs),
    lifecycle: { draining: false },
    metrics: createMetrics(() => gateway), // read when scraped, after construction
    health: new PathHealth(config.pathHealth),
  };
  controlPlane.observe = (method, seconds, outcome) => gateway.metrics.controlPlaneCalls.series(method, outcome).observe(seconds);
  gateway.keys.onLookup = (result) => gateway.metrics.keyCacheLookups.series(result).inc();
  app = buildDataPlaneApp(gateway);

  let resolveFirstCatalogue: () => void = () => {};
  const firstCatalogue = new Promise<void>((resolve) => (resolveFirstCatalogue = resolve));
  controlPlane.subscribe(
    config.replicaId,
    (event) => {
      if (event.catalogue) {
        gateway.catalogue.current = buildSnapshot(event.catalogue);
        resolveFirstCatalogue();
      } else if (event.keyRevoked) {
        gateway.keys.revokeKey(event.keyRevoked.keyId);
      } else if (event.projectChanged) {
        gateway.keys.projectChanged(event.projectChanged.projectId, event.projectChanged.limits?.rpmLimit ?? null);
        gateway.billing.leases.projectChanged(event.projectChanged.projectId);
      }
    },
    (error) => app?.log.warn({ err: error }, "control-plane subscription error"),
  );

  const url = await app.listen({ host: config.host, port: config.port });
  return {
    url,
    app,
    gateway,
    catalogueReady: (timeoutMs) =>
      Promise.race([
        firstCatalogue.then(() => true),
        new Promise<boolean>((resolve) => setTimeout(() => resolve(false), timeoutMs).unref()),
      ]),
    close: async () => {
      gateway.lifecycle.draining = true;
      // Readiness goes first: /health says "draining" while traffic still flows, so load balancers
      // (a Kubernetes Service, nginx health checks) take this replica out before it stops accepting.
      if (config.shutdownDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, config.shutdownDelayMs));
      // Stop accepting; in-flight requests and streams get the drain time, then their sockets are cut.
      // A cut stream settles for what it delivered after its disconnect drain: flush waits for that
      // (and for every other open hold) before the control-plane client closes.
      const cut = setTimeout(() => app.server.closeAllConnections(), config.drainTimeoutMs);
      // A keep-alive connection that finishes its last response after close began would otherwise stay
      // open for the keep-alive timeout (72 s) and hold the process: close connections as they go idle.
      const idle = setInterval(() => app.server.closeIdleConnections(), 200);
      await app.close();
      clearInterval(idle);
      clearTimeout(cut);
      await gateway.billing.flush(config.drainTimeoutMs + config.clientDisconnectDrainMs);
      controlPlane.close();
      await http.close(config.clientDisconnectDrainMs + 1000);
      await gateway.rateLimiter.close();
    },
  };
}
