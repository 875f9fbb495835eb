// What the request path needs, built once by data-plane.ts.
import type { KeyCache } from "./auth/key-cache";
import type { RequestBilling } from "./billing/request-billing";
import type { CatalogueSnapshot } from "./catalogue/catalogue-snapshot";
import type { DataPlaneConfig } from "./config";
import type { ControlPlaneClientWrapper } from "./control-plane/control-plane-client";
import type { RateLimiter } from "./limits/rate-limiter";
import type { PathHealth } from "./routing/path-health";
import type { DataPlaneMetrics } from "./metrics";
import type { UpstreamProvider } from "./providers/upstream-provider";

export interface Gateway {
  config: DataPlaneConfig;
  controlPlane: ControlPlaneClientWrapper;
  keys: KeyCache;
  billing: RequestBilling;
  /** The last good catalogue; undefined until the first one arrives. */
  catalogue: { current: CatalogueSnapshot | undefined };
  providers: Map<string, UpstreamProvider>;
  rateLimiter: RateLimiter;
  /** Recent error rate and latency of each access path, as this replica saw them. */
  health: PathHealth;
  metrics: DataPlaneMetrics;
  lifecycle: { draining: boolean };
}
