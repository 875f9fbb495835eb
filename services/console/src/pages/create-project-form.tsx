// Creates a project: a name, and an id if the operator wants to choose it (generated otherwise).
import { useState } from "react";
import { unwrap } from "../api/client";
import { useClient } from "../api/client-context";
import { ErrorNote } from "../components/states";
import { useSubmit } from "../components/use-submit";

export function CreateProjectForm({ onCreated }: { onCreated: () => void }) {
  const client = useClient();
  const [name, setName] = useState("");
  const [id, setId] = useState("");
  const [created, setCreated] = useState<string>();
  const { error, busy, onSubmit } = useSubmit(async () => {
    const project = unwrap(await client.POST("/admin/projects", { body: { name, ...(id ? { id } : {}) } }));
    setCreated(`Created ${project.name} (${project.id}).`);
    setName("");
    setId("");
    onCreated();
  });

  return (
    <section className="panel" aria-labelledby="create-project">
      <h2 id="create-project">Create a project</h2>
      <form onSubmit={onSubmit} className="fields">
        <label>
          Name
          <input name="name" required value={name} onChange={(event) => setName(event.target.value)} />
        </label>
        <label>
          Id <span className="hint">(optional: generated if empty)</span>
          <input name="id" value={id} onChange={(event) => setId(event.target.value)} />
        </label>
        <button type="submit" disabled={busy}>
          Create project
        </button>
      </form>
      {created && (
        <p className="ok" role="status">
          {created}
        </p>
      )}
      {error && <ErrorNote message={error} />}
    </section>
  );
}
