// The gateway's health (GET /admin/health): the control-plane replica that answered, and every data plane's
// latest report with its status in words, control-plane link, rate limiting, catalogue and open circuits,
// then their pools of provider keys (provider-keys-table.tsx).
import type { Schemas } from "../api/client";
import { unwrap } from "../api/client";
import { useClient } from "../api/client-context";
import { Time } from "../components/figures";
import { Empty, ErrorNote, Loading, useLoad } from "../components/states";
import { ProviderKeysTable } from "./provider-keys-table";

type ControlPlaneHealth = Schemas["ControlPlaneHealth"];
type DataPlaneHealth = Schemas["DataPlaneHealth"];

export function HealthPage() {
  const client = useClient();
  const { loaded, reload } = useLoad(async () => unwrap(await client.GET("/admin/health")), [client]);
  return (
    <>
      <h1>Health</h1>
      <p className="actions">
        <button type="button" onClick={reload}>
          Refresh
        </button>
      </p>
      {loaded.state === "loading" && <Loading what="the gateway's health" />}
      {loaded.state === "error" && <ErrorNote message={loaded.message} />}
      {loaded.state === "ready" && (
        <>
          <ControlPlaneCard state={loaded.data.control_plane} />
          <h2 id="data-planes-title">Data planes</h2>
          {loaded.data.data_planes === null ? (
            <ErrorNote message="The control plane cannot reach its database: the data planes' reports cannot be read." />
          ) : loaded.data.data_planes.length === 0 ? (
            <Empty>No data plane has reported yet.</Empty>
          ) : (
            <>
              <DataPlaneTable dataPlanes={loaded.data.data_planes} />
              <h2 id="provider-keys-title">Provider keys</h2>
              <ProviderKeysTable dataPlanes={loaded.data.data_planes} />
            </>
          )}
        </>
      )}
    </>
  );
}

/** "2 h 5 min", "3 min 10 s", "42 s". */
function duration(seconds: number): string {
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  if (hours > 0) return `${hours} h ${minutes} min`;
  return minutes > 0 ? `${minutes} min ${seconds % 60} s` : `${seconds} s`;
}

function ControlPlaneCard({ state }: { state: ControlPlaneHealth }) {
  return (
    <section className="panel" aria-labelledby="control-plane-title" data-control-plane={state.replica_id}>
      <h2 id="control-plane-title">Control plane (the replica that answered)</h2>
      <dl className="facts">
        <dt>Replica</dt>
        <dd data-field="replica_id">{state.replica_id}</dd>
        <dt>Version</dt>
        <dd data-field="version">{state.version}</dd>
        <dt>Started</dt>
        <dd>
          <Time iso={state.started_at} />
        </dd>
        <dt>Up for</dt>
        <dd data-field="uptime_seconds" data-seconds={state.uptime_seconds} title={`${state.uptime_seconds} s`}>
          {duration(state.uptime_seconds)}
        </dd>
        <dt>Database</dt>
        <dd data-field="database">
          {state.database.reachable ? (
            <span className="ok">reachable, {state.database.round_trip_ms} ms round trip</span>
          ) : (
            <span className="error">unreachable: {state.database.error}</span>
          )}
        </dd>
        <dt>Catalogue revision</dt>
        <dd data-field="catalogue_revision">{state.catalogue_revision ?? <span className="muted">unknown</span>}</dd>
        <dt>Data planes subscribed to it</dt>
        <dd data-field="subscribed_data_planes">
          {state.subscribed_data_planes.length === 0 ? (
            <span className="muted">none</span>
          ) : (
            <ul className="plain">
              {state.subscribed_data_planes.map((subscriber) => (
                <li key={`${subscriber.replica_id} ${subscriber.since}`}>
                  {subscriber.replica_id}, since <Time iso={subscriber.since} />
                </li>
              ))}
            </ul>
          )}
        </dd>
      </dl>
    </section>
  );
}

const CIRCUIT_STATES: Record<string, string> = { open: "open", half_open: "half-open (one probe allowed)", closed: "closed for everyone" };

function DataPlaneTable({ dataPlanes }: { dataPlanes: DataPlaneHealth[] }) {
  return (
    <div className="table-wrap">
      <table className="cards" aria-labelledby="data-planes-title">
        <thead>
          <tr>
            <th scope="col">Replica</th>
            <th scope="col">Status</th>
            <th scope="col">Control-plane link</th>
            <th scope="col">Rate limiting</th>
            <th scope="col">Catalogue revision</th>
            <th scope="col">Open circuits</th>
            <th scope="col">Last report (UTC)</th>
          </tr>
        </thead>
        <tbody>
          {dataPlanes.map((dataPlane) => (
            <tr key={dataPlane.replica_id} data-data-plane={dataPlane.replica_id}>
              <th scope="row" data-label="Replica">
                {dataPlane.replica_id}
                <span className="id">
                  version {dataPlane.version}, started <Time iso={dataPlane.started_at} />
                </span>
              </th>
              <td data-label="Status">
                <span className={`status status-${dataPlane.status}`} data-field="status">
                  {dataPlane.status}
                </span>
                {dataPlane.reasons.length > 0 && (
                  <ul className="plain reasons" data-field="reasons">
                    {dataPlane.reasons.map((reason) => (
                      <li key={reason}>{reason}</li>
                    ))}
                  </ul>
                )}
              </td>
              <td data-label="Control-plane link">
                <span data-field="control_plane_link">{dataPlane.control_plane_link}</span>
                {", calls "}
                <span data-field="control_plane_calls">{dataPlane.control_plane_calls === "in_time" ? "in time" : "stalled"}</span>
                <span className="id">via {dataPlane.control_plane_replica}</span>
              </td>
              <td data-label="Rate limiting" data-field="rate_limit">
                {dataPlane.rate_limit}
              </td>
              <td data-label="Catalogue revision" data-field="catalogue_revision">
                {dataPlane.catalogue_revision ?? <span className="muted">none yet</span>}
              </td>
              <td data-label="Open circuits">
                {dataPlane.circuits.length === 0 ? (
                  <span className="muted">none</span>
                ) : (
                  <ul className="plain" data-field="circuits">
                    {dataPlane.circuits.map((circuit) => (
                      <li
                        key={circuit.path}
                        data-circuit={circuit.path}
                        data-state={circuit.state}
                        data-projects-open={circuit.projects_open}
                      >
                        <code>{circuit.path}</code>: {CIRCUIT_STATES[circuit.state] ?? circuit.state}
                        {circuit.projects_open > 0 && `; open for ${circuit.projects_open} project(s)`}
                        <span className="id">
                          {circuit.consecutive_failures} consecutive failures, opened {circuit.opens} times
                        </span>
                      </li>
                    ))}
                  </ul>
                )}
              </td>
              <td data-label="Last report">
                <Time iso={dataPlane.reported_at} />
                <span className="id" data-field="age_ms" data-ms={dataPlane.age_ms}>
                  {(dataPlane.age_ms / 1000).toFixed(1)} s old when read; one every {dataPlane.report_interval_ms / 1000} s
                </span>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
