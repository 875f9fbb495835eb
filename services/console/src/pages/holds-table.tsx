// A project's holds: of a status (newest first, a page at a time) in the page's days, or the one hold of
// the request the page is filtered to, whatever its status: the admin API's GET /admin/projects/{id}/holds.
import { useState } from "react";
import { type Project, unwrap } from "../api/client";
import { useClient } from "../api/client-context";
import { ModelAndPath, Money, Time } from "../components/figures";
import { pageOf, PagingButtons, usePaging } from "../components/paging";
import { Empty, ErrorNote, Loading, useLoad } from "../components/states";
import { RequestLink } from "./ledger-entries";
import { HOLD_STATUSES, type LedgerFilter } from "./ledger-filter";

const PAGE = 25;

export function Holds({ project, filter }: { project: Project; filter: LedgerFilter }) {
  const [status, setStatus] = useState<(typeof HOLD_STATUSES)[number]>("active");
  return (
    <section aria-labelledby="holds-title">
      <h2 id="holds-title">{filter.request ? "The request's hold" : "Holds"}</h2>
      {!filter.request && (
        <div className="fields">
          <label>
            Status
            <select value={status} onChange={(event) => setStatus(event.target.value as typeof status)}>
              {HOLD_STATUSES.map((name) => (
                <option key={name} value={name}>
                  {name}
                </option>
              ))}
            </select>
          </label>
        </div>
      )}
      <HoldsPage key={status} project={project} filter={filter} status={status} />
    </section>
  );
}

function HoldsPage({ project, filter, status }: { project: Project; filter: LedgerFilter; status: (typeof HOLD_STATUSES)[number] }) {
  const client = useClient();
  const paging = usePaging();
  const { loaded } = useLoad(async () => {
    const query = filter.request
      ? { request_id: filter.request }
      : {
          status,
          limit: PAGE + 1,
          ...(filter.from ? { from: filter.from } : {}),
          ...(filter.to ? { to: filter.to } : {}),
          ...(paging.before ? { before: paging.before } : {}),
        };
    return unwrap(await client.GET("/admin/projects/{projectId}/holds", { params: { path: { projectId: project.id }, query } })).data;
  }, [client, project.id, paging.before]);

  if (loaded.state === "loading") return <Loading what="holds" />;
  if (loaded.state === "error") return <ErrorNote message={loaded.message} />;
  const { items, hasOlder } = pageOf(loaded.data, PAGE);
  if (items.length === 0)
    return (
      <Empty>
        {filter.request
          ? "No hold has this request id: a request served under a budget lease has no hold of its own."
          : `No ${status} holds${paging.number > 1 ? " older than these" : ""}.`}
      </Empty>
    );
  return (
    <>
      <div className="table-wrap">
        <table className="cards" data-table="holds">
          <caption className="visually-hidden">Holds of {project.name}</caption>
          <thead>
            <tr>
              <th scope="col">Request</th>
              <th scope="col">Status</th>
              <th scope="col">Held</th>
              <th scope="col">Debited</th>
              <th scope="col">Unbilled</th>
              <th scope="col">Model and path</th>
              <th scope="col">Placed</th>
              <th scope="col">Expires</th>
              <th scope="col">Closed</th>
              <th scope="col">Lease</th>
              <th scope="col">Refusal</th>
            </tr>
          </thead>
          <tbody>
            {items.map((hold) => (
              <tr key={hold.request_id} data-hold={hold.request_id}>
                <th scope="row" data-label="Request">
                  <RequestLink projectId={project.id} requestId={hold.request_id} />
                </th>
                <td data-label="Status" data-field="status">
                  {hold.status}
                </td>
                <td data-label="Held" data-field="amount">
                  <Money value={hold.amount} />
                </td>
                <td data-label="Debited" data-field="debited">
                  <Money value={hold.debited} />
                </td>
                <td data-label="Unbilled" data-field="unbilled">
                  <Money value={hold.unbilled} />
                </td>
                <td data-label="Model and path">
                  <ModelAndPath model={hold.model} path={hold.access_path} />
                </td>
                <td data-label="Placed">
                  <Time iso={hold.created_at} />
                </td>
                <td data-label="Expires">
                  <Time iso={hold.expires_at} />
                </td>
                <td data-label="Closed">
                  <Time iso={hold.closed_at} none="open" />
                </td>
                <td data-label="Lease">{hold.lease ? "yes: many requests' debits" : "no"}</td>
                <td data-label="Refusal">{hold.refusal ?? <span className="muted">none</span>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {!filter.request && <PagingButtons paging={paging} what="holds" oldest={hasOlder ? items.at(-1)!.request_id : undefined} />}
    </>
  );
}
