// The services the composition root builds and hands to the admin routes, the gRPC server and the metrics.
import type { HoldSweeper } from "./billing/hold-sweeper";
import type { LedgerService } from "./billing/ledger-service";
import type { CatalogueService } from "./catalogue/catalogue-service";
import type { AuditLog } from "./changes/audit-log";
import type { ChangeFeed } from "./changes/change-feed";
import type { ControlPlaneState } from "./health/control-plane-state";
import type { DataPlaneReports } from "./health/data-plane-reports";
import type { Subscribers } from "./health/subscribers";
import type { KeyService } from "./keys/key-service";
import type { ProjectService } from "./projects/project-service";

export interface ControlPlaneServices {
  projects: ProjectService;
  keys: KeyService;
  ledger: LedgerService;
  catalogue: CatalogueService;
  changes: ChangeFeed;
  sweeper: HoldSweeper;
  /** The data planes' latest state reports (all replicas'), and this replica's own state and subscribers. */
  reports: DataPlaneReports;
  controlPlaneState: ControlPlaneState;
  subscribers: Subscribers;
  auditLog: AuditLog;
}
