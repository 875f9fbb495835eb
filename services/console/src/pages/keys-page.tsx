// A project's keys: name, hint, created, expiry, status, their own limits and spend (all from the admin
// API; it records no last use, so none is shown). Issue (shown once), set limits, rotate, revoke.
import { useState } from "react";
import { type Key, type Project, unwrap } from "../api/client";
import { useClient } from "../api/client-context";
import { ConfirmDialog } from "../components/confirm-dialog";
import { Money, Time } from "../components/figures";
import { ProjectPicker } from "../components/project-picker";
import { ShownOnce } from "../components/shown-once";
import { Empty, ErrorNote, Loading, useLoad } from "../components/states";
import { useAttempt } from "../components/use-submit";
import { IssueKeyForm } from "./issue-key-form";
import { KeyLimitsForm } from "./key-limits-form";

export function KeysPage({ projectId }: { projectId: string | undefined }) {
  return (
    <>
      <h1>Keys</h1>
      <ProjectPicker page="keys" projectId={projectId}>
        {(project) => <ProjectKeys key={project.id} project={project} />}
      </ProjectPicker>
    </>
  );
}

type Action = { kind: "revoke" | "rotate" | "limits"; key: Key };
const keyLabel = (key: Key) => `${key.name ?? "unnamed key"} (${key.hint})`;

function ProjectKeys({ project }: { project: Project }) {
  const client = useClient();
  const path = { params: { path: { projectId: project.id } } };
  const { loaded, reload } = useLoad(async () => unwrap(await client.GET("/admin/projects/{projectId}/keys", path)).data, [client]);
  const [action, setAction] = useState<Action>();
  const [secret, setSecret] = useState<{ key: string; label: string }>();
  const { error, attempt } = useAttempt();
  const [grace, setGrace] = useState("24");

  // Whatever the outcome, the confirmation closes and the list is read again.
  const act = (run: () => Promise<void>) =>
    attempt(run, () => {
      setAction(undefined);
      reload();
    });
  const revoke = (key: Key) =>
    act(async () => {
      unwrap(await client.POST("/admin/keys/{keyId}/revoke", { params: { path: { keyId: key.id } } }));
    });
  const rotate = (key: Key) =>
    act(async () => {
      const rotated = unwrap(
        await client.POST("/admin/keys/{keyId}/rotate", {
          params: { path: { keyId: key.id } },
          body: { grace_seconds: Math.round(Number(grace) * 3600) },
        }),
      );
      setSecret({ key: rotated.key.key, label: `New key replacing ${keyLabel(key)}` });
    });

  return (
    <>
      {secret && <ShownOnce secret={secret.key} label={secret.label} onDismiss={() => setSecret(undefined)} />}
      {error && <ErrorNote message={error} />}
      {loaded.state === "loading" && <Loading what="keys" />}
      {loaded.state === "error" && <ErrorNote message={loaded.message} />}
      {loaded.state === "ready" && loaded.data.length === 0 && <Empty>{project.name} has no keys yet: issue one below.</Empty>}
      {loaded.state === "ready" && loaded.data.length > 0 && (
        <div className="table-wrap">
          <table className="cards">
            <caption className="visually-hidden">Keys of {project.name}</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Key</th>
                <th scope="col">Status</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">Expires</th>
                <th scope="col">Requests per minute</th>
                <th scope="col">Daily cap</th>
                <th scope="col">Budget (left)</th>
                <th scope="col">Spent today</th>
                <th scope="col">Spent in all (requests)</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {loaded.data.map((key) => (
                <tr key={key.id} data-key={key.id}>
                  <th scope="row" data-label="Name">
                    {key.name ?? <span className="muted">unnamed</span>}
                  </th>
                  <td data-label="Key">
                    <code>{key.hint}</code>
                  </td>
                  <td data-label="Status" data-field="status">
                    <span className={`status status-${key.status}`}>{key.status}</span>
                    {key.revoked_at && (
                      <>
                        {" "}
                        <Time iso={key.revoked_at} />
                      </>
                    )}
                  </td>
                  <td data-label="Created">
                    <Time iso={key.created_at} />
                  </td>
                  <td data-label="Last used" data-field="last_used">
                    <Time iso={key.last_used_at} none="not yet" />
                  </td>
                  <td data-label="Expires">
                    <Time iso={key.expires_at} />
                  </td>
                  <td data-label="Requests per minute">{key.rpm_limit ?? <span className="muted">project's</span>}</td>
                  <td data-label="Daily cap">
                    <Money value={key.daily_cap} none="project's" />
                  </td>
                  <td data-label="Budget (left)">
                    <Money value={key.budget} />
                    {key.budget_left && (
                      <>
                        {" "}
                        (<Money value={key.budget_left} />)
                      </>
                    )}
                  </td>
                  <td data-label="Spent today" data-field="spend_today">
                    <Money value={key.spend.today} />
                  </td>
                  <td data-label="Spent in all (requests)">
                    <span data-field="spend_total">
                      <Money value={key.spend.total} />
                    </span>{" "}
                    (<span data-field="requests">{key.spend.requests}</span>)
                  </td>
                  <td>
                    <div className="actions">
                      {key.status !== "revoked" && (
                        <>
                          <button type="button" onClick={() => setAction({ kind: "limits", key })}>
                            Limits<span className="visually-hidden"> of {keyLabel(key)}</span>
                          </button>
                          <button type="button" onClick={() => setAction({ kind: "rotate", key })}>
                            Rotate<span className="visually-hidden"> {keyLabel(key)}</span>
                          </button>
                          <button type="button" className="danger" onClick={() => setAction({ kind: "revoke", key })}>
                            Revoke<span className="visually-hidden"> {keyLabel(key)}</span>
                          </button>
                        </>
                      )}
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {action?.kind === "revoke" && (
        <ConfirmDialog
          title="Revoke this key?"
          confirmLabel="Revoke key"
          onConfirm={() => revoke(action.key)}
          onCancel={() => setAction(undefined)}
        >
          <p>{keyLabel(action.key)} stops working at once, on every data plane. This cannot be undone.</p>
        </ConfirmDialog>
      )}
      {action?.kind === "rotate" && (
        <ConfirmDialog
          title="Rotate this key?"
          confirmLabel="Rotate key"
          onConfirm={() => rotate(action.key)}
          onCancel={() => setAction(undefined)}
        >
          <p>
            A new key with the same name and limits is issued; {keyLabel(action.key)} keeps working for the grace period, then is revoked.
          </p>
          <label>
            Grace period (hours)
            <input inputMode="decimal" value={grace} onChange={(event) => setGrace(event.target.value)} />
          </label>
        </ConfirmDialog>
      )}
      {action?.kind === "limits" && (
        <KeyLimitsForm
          key={action.key.id}
          apiKey={action.key}
          onSaved={() => {
            setAction(undefined);
            reload();
          }}
          onClose={() => setAction(undefined)}
        />
      )}
      <IssueKeyForm
        project={project}
        onIssued={(issued) => {
          setSecret({ key: issued.key, label: `New key ${keyLabel(issued)}` });
          reload();
        }}
      />
    </>
  );
}
