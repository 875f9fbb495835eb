// The audit log (GET /admin/audit-log): admin actions newest first, by kind, paged back by event id, with
// who acted. A project subject links to its keys, a top-up to the project's top-ups in the ledger.
import { useState } from "react";
import type { Schemas } from "../api/client";
import { unwrap } from "../api/client";
import { useClient } from "../api/client-context";
import { Money, Time } from "../components/figures";
import { PagingButtons, pageOf, usePaging } from "../components/paging";
import { Link } from "../components/router";
import { Empty, ErrorNote, Loading, useLoad } from "../components/states";

type AuditEvent = Schemas["AuditEvent"];
type Kind = AuditEvent["kind"];

const PAGE_SIZE = 25;

/** Each kind in words (the API's kind is shown beside it). */
const KINDS: Record<Kind, string> = {
  project_created: "Project created",
  project_changed: "Project limits changed",
  topup: "Top-up",
  key_issued: "Key issued",
  key_changed: "Key changed (limits, expiry or rotation)",
  key_revoked: "Key revoked",
  catalogue: "Catalogue loaded",
};

export function AuditLogPage() {
  const [kind, setKind] = useState<Kind | "">("");
  return (
    <>
      <h1>Audit log</h1>
      <p className="hint">
        Admin actions, newest first, with who acted: the admin token (the one credential today), or the control plane itself (an expired
        key's revocation, the default catalogue at first start).
      </p>
      <div className="fields picker">
        <label>
          Kind
          <select value={kind} onChange={(event) => setKind(event.target.value as Kind | "")}>
            <option value="">All kinds</option>
            {(Object.keys(KINDS) as Kind[]).map((value) => (
              <option key={value} value={value}>
                {KINDS[value]}
              </option>
            ))}
          </select>
        </label>
      </div>
      {/* Remounted for each kind: its listing starts from the newest page. */}
      <AuditEvents key={kind} kind={kind} />
    </>
  );
}

function AuditEvents({ kind }: { kind: Kind | "" }) {
  const client = useClient();
  const paging = usePaging();
  const { before } = paging;
  const { loaded } = useLoad(async () => {
    // One more than a page: whether an older page exists.
    const query = { limit: PAGE_SIZE + 1, ...(kind ? { kind } : {}), ...(before ? { before } : {}) };
    return pageOf(unwrap(await client.GET("/admin/audit-log", { params: { query } })).data, PAGE_SIZE);
  }, [client, kind, before]);

  return (
    <>
      {loaded.state === "loading" && <Loading what="the audit log" />}
      {loaded.state === "error" && <ErrorNote message={loaded.message} />}
      {loaded.state === "ready" &&
        (loaded.data.items.length === 0 ? (
          <Empty>{before ? "No older actions." : kind ? "No actions of this kind yet." : "No admin actions yet."}</Empty>
        ) : (
          <div className="table-wrap">
            <table className="cards">
              <caption className="visually-hidden">Admin actions, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Time (UTC)</th>
                  <th scope="col">Action</th>
                  <th scope="col">Subject</th>
                  <th scope="col">By</th>
                  <th scope="col">Event</th>
                </tr>
              </thead>
              <tbody>
                {loaded.data.items.map((event) => (
                  <tr key={event.id} data-event={event.id}>
                    <th scope="row" data-label="Time">
                      <Time iso={event.at} />
                    </th>
                    <td data-label="Action">
                      {KINDS[event.kind]}{" "}
                      <code className="muted" data-field="kind">
                        {event.kind}
                      </code>
                    </td>
                    <td data-label="Subject">
                      <Subject subject={event.subject} />
                    </td>
                    <td data-label="By" data-field="actor">
                      {event.actor ?? <span className="muted">not recorded</span>}
                    </td>
                    <td data-label="Event" data-field="id">
                      {event.id}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ))}
      {loaded.state === "ready" && (
        <PagingButtons paging={paging} what="actions" oldest={loaded.data.hasOlder ? loaded.data.items.at(-1)?.id : undefined} />
      )}
    </>
  );
}

function Subject({ subject }: { subject: AuditEvent["subject"] }) {
  return (
    <ul className="plain">
      {subject.project_id && (
        <li data-field="project_id" data-value={subject.project_id}>
          project{" "}
          <Link page="keys" params={{ project: subject.project_id }}>
            {subject.project_id}
          </Link>
        </li>
      )}
      {subject.key_id && (
        <li data-field="key_id" data-value={subject.key_id}>
          key <code>{subject.key_id}</code>
        </li>
      )}
      {subject.replaces_key_id && (
        <li data-field="replaces_key_id" data-value={subject.replaces_key_id}>
          replacing key <code>{subject.replaces_key_id}</code>
        </li>
      )}
      {subject.amount && subject.project_id && (
        <li data-field="amount" data-value={subject.amount.nano}>
          <Link page="ledger" params={{ project: subject.project_id, kind: "topup" }}>
            <Money value={subject.amount} />
          </Link>
        </li>
      )}
      {subject.catalogue_revision && (
        <li data-field="catalogue_revision" data-value={subject.catalogue_revision}>
          catalogue revision {subject.catalogue_revision}
        </li>
      )}
    </ul>
  );
}
