// A project's ledger entries and holds, filtered by kind, UTC days, request id and key. The filter is in
// the address (ledger-filter.ts): a request id anywhere on the page links to its entries and hold.
import { useState } from "react";
import type { Project } from "../api/client";
import { KeySelect } from "../components/key-select";
import { ProjectPicker } from "../components/project-picker";
import { Link, navigate } from "../components/router";
import { Holds } from "./holds-table";
import { LedgerEntries } from "./ledger-entries";
import { ENTRY_KINDS, filterOf, type LedgerFilter, ledgerHref } from "./ledger-filter";

export function LedgerPage({ projectId, params }: { projectId: string | undefined; params: URLSearchParams }) {
  const filter = filterOf(params);
  return (
    <>
      <h1>Ledger and holds</h1>
      <ProjectPicker page="ledger" projectId={projectId}>
        {(project) => <FilteredLedger key={`${project.id} ${params.toString()}`} project={project} filter={filter} />}
      </ProjectPicker>
    </>
  );
}

/** Remounted for each project and filter: the forms start from it and the listings from their first page. */
function FilteredLedger({ project, filter }: { project: Project; filter: LedgerFilter }) {
  return (
    <>
      <FilterForm project={project} filter={filter} />
      {filter.request && (
        <p>
          Request <code>{filter.request}</code>: its ledger entries and its hold.{" "}
          <Link page="ledger" params={{ project: project.id }}>
            Show every entry
          </Link>
        </p>
      )}
      <LedgerEntries project={project} filter={filter} />
      <Holds project={project} filter={filter} />
    </>
  );
}

function FilterForm({ project, filter }: { project: Project; filter: LedgerFilter }) {
  const [draft, setDraft] = useState(filter);
  const set = (field: keyof LedgerFilter) => (event: React.ChangeEvent<HTMLInputElement | HTMLSelectElement>) =>
    setDraft({ ...draft, [field]: event.target.value.trim() });

  return (
    <form
      className="fields"
      aria-label="Filter"
      onSubmit={(event) => {
        event.preventDefault();
        navigate(ledgerHref(project.id, draft));
      }}
    >
      <label>
        Kind
        <select value={draft.kind} onChange={set("kind")}>
          <option value="">Every kind</option>
          {ENTRY_KINDS.map((kind) => (
            <option key={kind} value={kind}>
              {kind}
            </option>
          ))}
        </select>
      </label>
      <label>
        From (UTC day)
        <input type="date" value={draft.from} onChange={set("from")} />
      </label>
      <label>
        To (UTC day)
        <input type="date" value={draft.to} onChange={set("to")} />
      </label>
      <label>
        Request id
        <input value={draft.request} onChange={set("request")} spellCheck={false} />
      </label>
      <KeySelect projectId={project.id} value={draft.key} noneLabel="Every key" onChange={(key) => setDraft({ ...draft, key })} />
      <button type="submit">Filter</button>
    </form>
  );
}
