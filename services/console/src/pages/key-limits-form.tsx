// Changes a key's name and terms (an empty field clears that term).
import { useState } from "react";
import { type Key, unwrap } from "../api/client";
import { useClient } from "../api/client-context";
import { ErrorNote } from "../components/states";
import { useSubmit } from "../components/use-submit";
import { TermsFields, termsBody, termsOf } from "./key-terms";

export function KeyLimitsForm(props: { apiKey: Key; onSaved: () => void; onClose: () => void }) {
  const client = useClient();
  const [name, setName] = useState(props.apiKey.name ?? "");
  const [terms, setTerms] = useState(() => termsOf(props.apiKey));
  const { error, onSubmit } = useSubmit(async () => {
    unwrap(
      await client.PATCH("/admin/keys/{keyId}", {
        params: { path: { keyId: props.apiKey.id } },
        body: { name: name.trim() === "" ? null : name.trim(), ...termsBody(terms) },
      }),
    );
    props.onSaved();
  });

  return (
    <section className="panel" aria-labelledby="key-limits">
      <h2 id="key-limits">Limits of key {props.apiKey.hint}</h2>
      <form onSubmit={onSubmit} className="fields">
        <label>
          Name
          <input name="name" value={name} onChange={(event) => setName(event.target.value)} />
        </label>
        <TermsFields terms={terms} onChange={setTerms} />
        <div className="actions">
          <button type="submit">Save key limits</button>
          <button type="button" onClick={props.onClose}>
            Close
          </button>
        </div>
      </form>
      {error && <ErrorNote message={error} />}
    </section>
  );
}
