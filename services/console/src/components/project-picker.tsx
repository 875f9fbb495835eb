// The project a page shows (?project=), chosen from the admin API's list; the first one unless chosen.
import { useEffect } from "react";
import { type Project, unwrap } from "../api/client";
import { useClient } from "../api/client-context";
import { hrefOf, navigate } from "./router";
import { Empty, ErrorNote, Loading, useLoad } from "./states";

export function ProjectPicker(props: { page: string; projectId: string | undefined; children: (project: Project) => React.ReactNode }) {
  const client = useClient();
  const { loaded } = useLoad(async () => unwrap(await client.GET("/admin/projects")).data, [client]);
  const projects = loaded.state === "ready" ? loaded.data : [];
  const chosen = projects.find((project) => project.id === props.projectId) ?? projects[0];
  useEffect(() => {
    if (chosen && chosen.id !== props.projectId) window.history.replaceState(null, "", hrefOf(props.page, { project: chosen.id }));
  }, [chosen, props.page, props.projectId]);

  if (loaded.state === "loading") return <Loading what="projects" />;
  if (loaded.state === "error") return <ErrorNote message={loaded.message} />;
  if (!chosen) return <Empty>No projects yet: create one on the Projects page.</Empty>;
  return (
    <>
      <div className="fields picker">
        <label>
          Project
          <select value={chosen.id} onChange={(event) => navigate(hrefOf(props.page, { project: event.target.value }))}>
            {projects.map((project) => (
              <option key={project.id} value={project.id}>
                {project.name} ({project.id})
              </option>
            ))}
          </select>
        </label>
      </div>
      {props.children(chosen)}
    </>
  );
}
