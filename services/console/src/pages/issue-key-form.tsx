// Issues a key with a name and, if given, its own terms; the page shows the key once.
import { useState } from "react";
import { type IssuedKey, type Project, unwrap } from "../api/client";
import { useClient } from "../api/client-context";
import { ErrorNote } from "../components/states";
import { useSubmit } from "../components/use-submit";
import { NO_TERMS, TermsFields, termsBody } from "./key-terms";

export function IssueKeyForm(props: { project: Project; onIssued: (key: IssuedKey) => void }) {
  const client = useClient();
  const [name, setName] = useState("");
  const [terms, setTerms] = useState(NO_TERMS);
  const { error, busy, onSubmit } = useSubmit(async () => {
    // Only the terms given: an issued key without them has none of its own.
    const body = Object.fromEntries(Object.entries(termsBody(terms)).filter(([, value]) => value !== null));
    const issued = unwrap(
      await client.POST("/admin/projects/{projectId}/keys", {
        params: { path: { projectId: props.project.id } },
        body: { ...body, ...(name.trim() ? { name: name.trim() } : {}) },
      }),
    );
    setName("");
    setTerms(NO_TERMS);
    props.onIssued(issued);
  });

  return (
    <section className="panel" aria-labelledby="issue-key">
      <h2 id="issue-key">Issue a key for {props.project.name}</h2>
      <form onSubmit={onSubmit} className="fields">
        <label>
          Name <span className="hint">(optional)</span>
          <input name="name" value={name} onChange={(event) => setName(event.target.value)} />
        </label>
        <TermsFields terms={terms} onChange={setTerms} />
        <button type="submit" disabled={busy}>
          Issue key
        </button>
      </form>
      {error && <ErrorNote message={error} />}
    </section>
  );
}
