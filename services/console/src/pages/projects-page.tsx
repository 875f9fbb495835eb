// Projects: each with its balance, held and available amounts, today's spend against its daily cap, its
// requests-per-minute limit and its keys (all from the admin API); create one, top one up, set limits.
import { useState } from "react";
import { type AdminClient, type Balance, type Project, unwrap } from "../api/client";
import { useClient } from "../api/client-context";
import { Money } from "../components/figures";
import { Link } from "../components/router";
import { Empty, ErrorNote, Loading, useLoad } from "../components/states";
import { CreateProjectForm } from "./create-project-form";
import { ProjectLimitsForm } from "./project-limits-form";
import { TopUpForm } from "./top-up-form";

export interface ProjectRow {
  project: Project;
  balance: Balance;
  keys: number;
}

/** Every project with its balance and keys: one call for the list, then two per project. */
export async function loadProjectRows(client: AdminClient): Promise<ProjectRow[]> {
  const projects = unwrap(await client.GET("/admin/projects")).data;
  return Promise.all(
    projects.map(async (project) => {
      const path = { params: { path: { projectId: project.id } } };
      const [balance, keys] = await Promise.all([
        client.GET("/admin/projects/{projectId}/balance", path).then(unwrap),
        client.GET("/admin/projects/{projectId}/keys", path).then(unwrap),
      ]);
      return { project, balance, keys: keys.data.length };
    }),
  );
}

type Action = { kind: "top-up" | "limits"; project: Project };

export function ProjectsPage() {
  const client = useClient();
  const { loaded, reload } = useLoad(() => loadProjectRows(client), [client]);
  const [action, setAction] = useState<Action>();

  return (
    <>
      <h1>Projects</h1>
      {loaded.state === "loading" && <Loading what="projects" />}
      {loaded.state === "error" && <ErrorNote message={loaded.message} />}
      {loaded.state === "ready" && loaded.data.length === 0 && <Empty>No projects yet: create the first one below.</Empty>}
      {loaded.state === "ready" && loaded.data.length > 0 && (
        <div className="table-wrap">
          <table className="cards">
            <caption className="visually-hidden">Projects with their money and limits</caption>
            <thead>
              <tr>
                <th scope="col">Project</th>
                <th scope="col">Balance</th>
                <th scope="col">Held</th>
                <th scope="col">Available</th>
                <th scope="col">Spent today / daily cap</th>
                <th scope="col">Requests per minute</th>
                <th scope="col">Keys</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {loaded.data.map(({ project, balance, keys }) => (
                <tr key={project.id} data-project={project.id}>
                  <th scope="row" data-label="Project">
                    {project.name} <span className="id">{project.id}</span>
                  </th>
                  <td data-label="Balance" data-field="balance">
                    <Money value={balance.balance} />
                  </td>
                  <td data-label="Held" data-field="held">
                    <Money value={balance.held} />
                  </td>
                  <td data-label="Available" data-field="available">
                    <Money value={balance.available} />
                  </td>
                  <td data-label="Spent today / daily cap">
                    <span data-field="spent_today">
                      <Money value={balance.spent_today} />
                    </span>{" "}
                    /{" "}
                    <span data-field="daily_cap">
                      <Money value={balance.daily_cap} none="no cap" />
                    </span>
                  </td>
                  <td data-label="Requests per minute" data-field="rpm_limit">
                    {project.rpm_limit ?? <span className="muted">no limit</span>}
                  </td>
                  <td data-label="Keys" data-field="keys">
                    <Link page="keys" params={{ project: project.id }}>
                      {keys} {keys === 1 ? "key" : "keys"}
                    </Link>
                  </td>
                  <td>
                    <div className="actions">
                      <button type="button" onClick={() => setAction({ kind: "top-up", project })}>
                        Top up<span className="visually-hidden"> {project.name}</span>
                      </button>
                      <button type="button" onClick={() => setAction({ kind: "limits", project })}>
                        Limits<span className="visually-hidden"> of {project.name}</span>
                      </button>
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {action?.kind === "top-up" && (
        <TopUpForm key={`top-up-${action.project.id}`} project={action.project} onDone={reload} onClose={() => setAction(undefined)} />
      )}
      {action?.kind === "limits" && (
        <ProjectLimitsForm
          key={`limits-${action.project.id}`}
          project={action.project}
          onSaved={() => {
            setAction(undefined);
            reload();
          }}
          onClose={() => setAction(undefined)}
        />
      )}
      <CreateProjectForm onCreated={reload} />
    </>
  );
}
