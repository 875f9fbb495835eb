// A project's ledger entries under the page's filter, newest first, a page at a time: the admin API's
// GET /admin/projects/{id}/ledger. A debit's request id links to that request's entries and hold.
import { type LedgerEntry, type Project, unwrap } from "../api/client";
import { useClient } from "../api/client-context";
import { ModelAndPath, Money, Time } from "../components/figures";
import { Link } from "../components/router";
import { pageOf, PagingButtons, usePaging } from "../components/paging";
import { Empty, ErrorNote, Loading, useLoad } from "../components/states";
import { entriesQuery, type LedgerFilter } from "./ledger-filter";

const PAGE = 25;

export function RequestLink({ projectId, requestId }: { projectId: string; requestId: string }) {
  return (
    <Link page="ledger" params={{ project: projectId, request: requestId }}>
      <code>{requestId}</code>
    </Link>
  );
}

/** "input 19 $0.0000076": each component's units and cost. */
function CostParts({ parts }: { parts: LedgerEntry["cost_by_component"] }) {
  if (!parts || Object.keys(parts).length === 0) return <span className="muted">none</span>;
  return (
    <ul className="parts">
      {Object.entries(parts).map(([component, part]) => (
        <li key={component}>
          {component} {part.units} <Money value={part.cost} />
        </li>
      ))}
    </ul>
  );
}

export function LedgerEntries({ project, filter }: { project: Project; filter: LedgerFilter }) {
  const client = useClient();
  const paging = usePaging();
  const { loaded } = useLoad(async () => {
    const query = entriesQuery(filter, PAGE + 1, paging.before);
    return unwrap(await client.GET("/admin/projects/{projectId}/ledger", { params: { path: { projectId: project.id }, query } })).data;
  }, [client, project.id, paging.before]);

  if (loaded.state === "loading") return <Loading what="ledger entries" />;
  if (loaded.state === "error") return <ErrorNote message={loaded.message} />;
  const { items, hasOlder } = pageOf(loaded.data, PAGE);
  if (items.length === 0) return <Empty>No ledger entries {paging.number > 1 ? "older than these" : "match this filter"}.</Empty>;
  return (
    <>
      <div className="table-wrap">
        <table className="cards" data-table="ledger">
          <caption>Ledger entries, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Entry</th>
              <th scope="col">Time</th>
              <th scope="col">Kind</th>
              <th scope="col">Amount</th>
              <th scope="col">Day (UTC)</th>
              <th scope="col">Request or idempotency key</th>
              <th scope="col">Key</th>
              <th scope="col">Model and path</th>
              <th scope="col">Tokens in / out</th>
              <th scope="col">Cost by component</th>
            </tr>
          </thead>
          <tbody>
            {items.map((entry) => (
              <tr key={entry.id} data-entry={entry.id}>
                <th scope="row" data-label="Entry">
                  {entry.id}
                </th>
                <td data-label="Time">
                  <Time iso={entry.created_at} />
                </td>
                <td data-label="Kind" data-field="kind">
                  {entry.kind}
                </td>
                <td data-label="Amount" data-field="amount">
                  <Money value={entry.amount} />
                </td>
                <td data-label="Day (UTC)">{entry.day}</td>
                <td data-label="Request or idempotency key" data-field="request">
                  {entry.request_id ? (
                    <RequestLink projectId={project.id} requestId={entry.request_id} />
                  ) : entry.idempotency_key ? (
                    <code>{entry.idempotency_key}</code>
                  ) : (
                    <span className="muted">none</span>
                  )}
                </td>
                <td data-label="Key">{entry.key_id ? <code>{entry.key_id}</code> : <span className="muted">none</span>}</td>
                <td data-label="Model and path">
                  <ModelAndPath model={entry.model} path={entry.access_path} />
                </td>
                <td data-label="Tokens in / out">
                  {entry.input_tokens ?? "–"} / {entry.output_tokens ?? "–"}
                </td>
                <td data-label="Cost by component">
                  <CostParts parts={entry.cost_by_component} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <PagingButtons paging={paging} what="entries" oldest={hasOlder ? items.at(-1)!.id : undefined} />
    </>
  );
}
