// Usage of a project, or of one of its keys, per UTC day (the admin API's usage rows, day × model) for a
// chosen range: charts of spend by model and tokens by type, tables per model and per row, and a CSV.
import { useMemo, useState } from "react";
import { type Project, unwrap } from "../api/client";
import { useClient } from "../api/client-context";
import { KeySelect } from "../components/key-select";
import { ProjectPicker } from "../components/project-picker";
import { Empty, ErrorNote, Loading, useLoad } from "../components/states";
import { UsageCharts } from "./usage-charts";
import { usageCsv } from "./usage-csv";
import { chartDays } from "./usage-figures";
import { DayModelTable, ModelTable } from "./usage-tables";

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
  const { loaded } = useLoad(async () => {
    const query = { from: range.from, to: range.to };
    return range.keyId
      ? unwrap(await client.GET("/admin/keys/{keyId}/usage", { params: { path: { keyId: range.keyId }, query } }))
      : unwrap(await client.GET("/admin/projects/{projectId}/usage", { params: { path: { projectId: project.id }, query } }));
  }, [client, range.from, range.to, range.keyId]);
  const days = useMemo(() => (loaded.state === "ready" ? chartDays(loaded.data) : []), [loaded]);
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
        <KeySelect projectId={project.id} value={draft.keyId} noneLabel="All keys" onChange={(keyId) => setDraft({ ...draft, keyId })} />
        <button type="submit">Show</button>
      </form>
      {loaded.state === "loading" && <Loading what="usage" />}
      {loaded.state === "error" && <ErrorNote message={loaded.message} />}
      {loaded.state === "ready" && (
        <>
          <UsageCharts days={days} models={loaded.data.by_model} />
          {loaded.data.data.length === 0 ? (
            <Empty>
              No requests from {loaded.data.from} to {loaded.data.to}.
            </Empty>
          ) : (
            <>
              <ModelTable
                caption={`Per model, ${loaded.data.from} to ${loaded.data.to} (UTC)`}
                models={loaded.data.by_model}
                total={loaded.data.total}
              />
              <p>
                <a href={csvHref} download={`usage-${range.keyId || project.id}-${loaded.data.from}-${loaded.data.to}.csv`}>
                  Download CSV
                </a>
              </p>
              <DayModelTable caption="Per UTC day and model" rows={loaded.data.data} />
            </>
          )}
        </>
      )}
    </>
  );
}
