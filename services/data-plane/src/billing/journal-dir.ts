// Where a data plane keeps its draw journal's files (docs/money.md, "A killed data plane"), from
// DRAW_JOURNAL_DIR and DATA_PLANE_REPLICA_ID (config.ts reads the rest of the environment).
import os from "node:os";
import path from "node:path";

/**
 * The journal's directory: under DRAW_JOURNAL_DIR (default: the OS temp dir's gateway-draw-journal,
 * which the deploy files' /tmp emptyDir keeps across container restarts), one per replica id, so that
 * a data plane started again under the same id (a pod's container) finds what its predecessor left.
 */
export function drawJournalDir(env: NodeJS.ProcessEnv): string | undefined {
  const root = env.DRAW_JOURNAL_DIR?.trim() || path.join(os.tmpdir(), "gateway-draw-journal");
  if (root === "off") return undefined;
  const replicaId = env.DATA_PLANE_REPLICA_ID || `data-plane-${process.pid}`;
  return path.resolve(root, replicaId.replace(/[^A-Za-z0-9._-]/g, "_").replace(/^\.+$/, "_"));
}
