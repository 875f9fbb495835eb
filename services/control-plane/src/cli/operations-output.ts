// gatewayctl's human output of the operations commands: `health` (GET /admin/health) and `audit`
// (GET /admin/audit-log), as tables that still split on runs of spaces.
import { table } from "./table";

type Row = Record<string, unknown>;
const usd = (value: unknown) => (value && typeof value === "object" ? `$${(value as { usd: string }).usd}` : "");

export function healthText(result: unknown): string {
  const { control_plane: cp, data_planes: dataPlanes } = result as { control_plane: Row; data_planes: Row[] | null };
  const database = cp.database as { reachable: boolean; round_trip_ms: number | null; error: string | null };
  const subscribed = cp.subscribed_data_planes as { replica_id: string }[];
  const lines = [
    `control plane ${cp.replica_id} (version ${cp.version}, up ${cp.uptime_seconds} s): ` +
      (database.reachable ? `database reachable (${database.round_trip_ms} ms)` : `database UNREACHABLE: ${database.error}`) +
      `, catalogue revision ${cp.catalogue_revision ?? "unknown"}, ${subscribed.length} data plane(s) subscribed to it`,
    "",
  ];
  if (dataPlanes === null) return [...lines, "data planes: unknown (their reports are in the database)"].join("\n");
  if (dataPlanes.length === 0) return [...lines, "no data plane has reported"].join("\n");
  const circuits = (plane: Row) =>
    (plane.circuits as { path: string; state: string; projects_open: number }[])
      .map((circuit) => `${circuit.path} ${circuit.state}${circuit.projects_open ? ` (${circuit.projects_open} projects)` : ""}`)
      .join(", ") || "none";
  const rows = dataPlanes.map((plane) => [
    String(plane.replica_id),
    String(plane.status),
    `${plane.control_plane_link}, calls ${plane.control_plane_calls}`,
    String(plane.rate_limit),
    String(plane.catalogue_revision ?? "none"),
    circuits(plane),
    `${Math.round(Number(plane.age_ms) / 100) / 10} s ago`,
  ]);
  const reasons = dataPlanes
    .filter((plane) => (plane.reasons as string[]).length > 0)
    .map((plane) => `${plane.replica_id}: ${(plane.reasons as string[]).join("; ")}`);
  return [
    ...lines,
    table(["DATA PLANE", "STATUS", "CONTROL-PLANE LINK", "RATE LIMIT", "CATALOGUE", "OPEN CIRCUITS", "LAST REPORT"], rows),
    ...(reasons.length > 0 ? ["", ...reasons] : []),
  ].join("\n");
}

export function auditText(result: unknown): string {
  const events = (result as { data: Row[] }).data;
  if (events.length === 0) return "no admin actions";
  const subject = (event: Row) => {
    const of = event.subject as Record<string, unknown>;
    return [
      of.project_id && `project ${of.project_id}`,
      of.key_id && `key ${of.key_id}`,
      of.replaces_key_id && `replacing ${of.replaces_key_id}`,
      of.catalogue_revision && `catalogue revision ${of.catalogue_revision}`,
      of.amount && usd(of.amount),
    ]
      .filter(Boolean)
      .join(", ");
  };
  return table(
    ["ID", "TIME", "KIND", "BY", "SUBJECT"],
    events.map((event) => [String(event.id), String(event.at), String(event.kind), String(event.actor ?? "not recorded"), subject(event)]),
  );
}
