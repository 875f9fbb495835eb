// Uploads a catalogue file (JSON, docs/catalogue.md) to check it (a dry run) or load it. A refused file's
// problems are shown under the entry each is in (its model and JSON pointer); nothing changes until
// the file is valid.
import { useState } from "react";
import { ApiError, type CatalogueProblem, describeError, unwrap } from "../api/client";
import type { paths } from "../generated/admin-api";
import { useClient } from "../api/client-context";
import { ErrorNote } from "../components/states";

type CatalogueFile = paths["/admin/catalogue"]["put"]["requestBody"]["content"]["application/json"];

type Outcome =
  | { kind: "checked" | "loaded"; revision: string | null; models: number; curated: number }
  | { kind: "refused"; problems: CatalogueProblem[] };

/** The entry a problem is in (`/models/3`), or "" for the file as a whole. */
const entryOf = (pointer: string) => /^\/(models|inventory)\/\d+/.exec(pointer)?.[0] ?? "";

function entryWords(entry: string): string {
  const [, list, index] = entry.split("/");
  if (!list) return "the file as a whole";
  return `${list === "models" ? "curated" : "inventory"} entry ${Number(index) + 1}`;
}

function Problems({ problems, revision }: { problems: CatalogueProblem[]; revision: string | undefined }) {
  const entries = [...new Set(problems.map((problem) => entryOf(problem.pointer)))];
  return (
    <>
      <p>
        Nothing was changed: the catalogue is still {revision ? `revision ${revision}` : "the one loaded"}. {problems.length}{" "}
        {problems.length === 1 ? "problem" : "problems"}, by entry:
      </p>
      <ul className="problems">
        {entries.map((entry) => {
          const own = problems.filter((problem) => entryOf(problem.pointer) === entry);
          return (
            <li key={entry || "file"} data-entry={entry}>
              <strong>{own[0]?.model ?? entryWords(entry)}</strong>
              {own[0]?.model && <span className="muted"> ({entryWords(entry)})</span>}
              <ul>
                {own.map((problem) => (
                  <li key={`${problem.pointer} ${problem.message}`} data-pointer={problem.pointer}>
                    <code>{problem.pointer || "/"}</code> {problem.message}
                  </li>
                ))}
              </ul>
            </li>
          );
        })}
      </ul>
    </>
  );
}

export function CatalogueUploadForm({ revision, onLoaded }: { revision: string | undefined; onLoaded: () => void }) {
  const client = useClient();
  const [file, setFile] = useState<File>();
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<Outcome>();
  const [error, setError] = useState<string>();

  async function send(dryRun: boolean) {
    if (!file) return setError("Choose a catalogue file first.");
    setBusy(true);
    setError(undefined);
    setOutcome(undefined);
    try {
      let body: CatalogueFile;
      try {
        body = JSON.parse(await file.text()) as CatalogueFile;
      } catch (failure) {
        return setError(`${file.name} is not JSON (${describeError(failure)}): nothing was sent, nothing was changed.`);
      }
      const answer = unwrap(
        await client.PUT("/admin/catalogue", { params: { query: { source: `console: ${file.name}`, dry_run: dryRun } }, body }),
      );
      setOutcome({ kind: dryRun ? "checked" : "loaded", ...answer });
      if (!dryRun) onLoaded();
    } catch (failure) {
      if (failure instanceof ApiError && failure.problems.length > 0) setOutcome({ kind: "refused", problems: failure.problems });
      else setError(`${describeError(failure)}. Nothing was changed.`);
    } finally {
      setBusy(false);
    }
  }

  return (
    <section className="panel" aria-labelledby="upload-title">
      <h2 id="upload-title">Upload a catalogue file</h2>
      <form
        className="fields"
        onSubmit={(event) => {
          event.preventDefault();
          void send(false);
        }}
      >
        <label>
          Catalogue file (JSON)
          <input
            type="file"
            name="catalogue"
            accept="application/json,.json"
            required
            onChange={(event) => {
              setFile(event.target.files?.[0]);
              setOutcome(undefined);
              setError(undefined);
            }}
          />
        </label>
        <div className="actions">
          <button type="button" disabled={busy} onClick={() => void send(true)}>
            Check only
          </button>
          <button type="submit" disabled={busy}>
            Load
          </button>
        </div>
        <p className="hint">
          Loading replaces the whole catalogue; a file without an inventory keeps the generated one. Check only validates it and changes
          nothing.
        </p>
      </form>
      {busy && (
        <p className="loading" role="status">
          Sending {file?.name}…
        </p>
      )}
      {outcome?.kind === "refused" && (
        <div className="refused" role="alert" data-field="problems">
          <h3 className="error">The file was refused</h3>
          <Problems problems={outcome.problems} revision={revision} />
        </div>
      )}
      {outcome?.kind === "checked" && (
        <p className="ok" role="status" data-field="checked">
          The file is valid: loading it would give {outcome.models} models, {outcome.curated} of them curated. Nothing was changed.
        </p>
      )}
      {outcome?.kind === "loaded" && (
        <p className="ok" role="status" data-field="loaded">
          Loaded revision <strong data-field="loaded_revision">{outcome.revision}</strong>: {outcome.models} models, {outcome.curated} of
          them curated.
        </p>
      )}
      {error && <ErrorNote message={error} />}
    </section>
  );
}
