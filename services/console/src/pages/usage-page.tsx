// Usage of a project, or of one of its keys, per UTC day (the admin API's usage rows, day × model) for a
// chosen range: a chart of spend and requests, the rows as a table, and the same rows as a CSV download.
import { useMemo, useState } from "react";
import { type Project, unwrap } from "../api/client";
import { useClient } from "../app";
import { DayChart } from "../components/day-chart";
import { Money } from "../components/figures";
import { ProjectPicker } from "../components/project-picker";
import { Empty, ErrorNote, Loading, useLoad } from "../components/states";
import { totalsByDay, usageCsv } from "./usage-table";

export function UsagePage({ projectId }: { projectId: string | undefined }) {
  return (
    <>
      <h1>Usage</h1>
      <ProjectPicker page="usage" projectId={projectId}>
        {(project) => <ProjectUsage key={project.id} project={project} />}
      </ProjectPicker>
    </>
  );
}

const today = () => new Date().toISOString().slice(0, 10);
const monthStart = () => `${today().slice(0, 8)}01`;

function ProjectUsage({ project }: { project: Project }) {
  const client = useClient();
  // keyId "": the whole project's usage; else that key's (GET /admin/keys/{keyId}/usage).
  const [range, setRange] = useState({ from: monthStart(), to: today(), keyId: "" });
  const [draft, setDraft] = useState(range);
  const keys = useLoad(
    async () => unwrap(await client.GET("/admin/projects/{projectId}/keys", { params: { path: { projectId: project.id } } })).data,
    [client, project.id],
  ).loaded;
  const { loaded } = useLoad(async () => {
    const query = { from: range.from, to: range.to };
    return range.keyId
      ? unwrap(await client.GET("/admin/keys/{keyId}/usage", { params: { path: { keyId: range.keyId }, query } }))
      : unwrap(await client.GET("/admin/projects/{projectId}/usage", { params: { path: { projectId: project.id }, query } }));
  }, [client, range.from, range.to, range.keyId]);
  const days = useMemo(() => (loaded.state === "ready" ? totalsByDay(loaded.data) : []), [loaded]);
  const csvHref = useMemo(
    () => (loaded.state === "ready" ? `data:text/csv;charset=utf-8,${encodeURIComponent(usageCsv(loaded.data.data))}` : undefined),
    [loaded],
  );

  return (
    <>
      <form
        className="fields"
        onSubmit={(event) => {
          event.preventDefault();
          setRange(draft);
        }}
      >
        <label>
          From (UTC day)
          <input type="date" required value={draft.from} onChange={(event) => setDraft({ ...draft, from: event.target.value })} />
        </label>
        <label>
          To (UTC day)
          <input type="date" required value={draft.to} onChange={(event) => setDraft({ ...draft, to: event.target.value })} />
        </label>
        <label>
          Key
          <select value={draft.keyId} onChange={(event) => setDraft({ ...draft, keyId: event.target.value })}>
            <option value="">All keys</option>
            {keys.state === "ready" &&
              keys.data.map((key) => (
                <option key={key.id} value={key.id}>
                  {key.name ?? "unnamed"} ({key.hint}, {key.id})
                </option>
              ))}
          </select>
        </label>
        <button type="submit">Show</button>
      </form>
      {loaded.state === "loading" && <Loading what="usage" />}
      {loaded.state === "error" && <ErrorNote message={loaded.message} />}
      {loaded.state === "ready" && (
        <>
          <DayChart days={days} />
          {loaded.data.data.length === 0 ? (
            <Empty>
              No requests from {loaded.data.from} to {loaded.data.to}.
            </Empty>
          ) : (
            <>
              <p>
                <a href={csvHref} download={`usage-${range.keyId || project.id}-${loaded.data.from}-${loaded.data.to}.csv`}>
                  Download CSV
                </a>
              </p>
              <div className="table-wrap">
                <table className="cards">
                  <caption className="visually-hidden">Usage of {project.name} per UTC day and model</caption>
                  <thead>
                    <tr>
                      <th scope="col">Day (UTC)</th>
                      <th scope="col">Model</th>
                      <th scope="col">Requests</th>
                      <th scope="col">Input tokens</th>
                      <th scope="col">Output tokens</th>
                      <th scope="col">Spend</th>
                    </tr>
                  </thead>
                  <tbody>
                    {loaded.data.data.map((row) => (
                      <tr key={`${row.day} ${row.model}`}>
                        <th scope="row" data-label="Day (UTC)">
                          {row.day}
                        </th>
                        <td data-label="Model">{row.model}</td>
                        <td data-label="Requests" data-field="requests">
                          {row.requests}
                        </td>
                        <td data-label="Input tokens">{row.input_tokens}</td>
                        <td data-label="Output tokens">{row.output_tokens}</td>
                        <td data-label="Spend" data-field="cost">
                          <Money value={row.cost} />
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            </>
          )}
        </>
      )}
    </>
  );
}
