// Sets or clears a project's requests per minute and daily spend cap (empty clears: no limit).
import { useState } from "react";
import { type Project, unwrap } from "../api/client";
import { useClient } from "../api/client-context";
import { ErrorNote } from "../components/states";
import { useSubmit } from "../components/use-submit";

export function ProjectLimitsForm(props: { project: Project; onSaved: () => void; onClose: () => void }) {
  const client = useClient();
  const [rpm, setRpm] = useState(props.project.rpm_limit?.toString() ?? "");
  const [cap, setCap] = useState(props.project.daily_cap?.usd ?? "");
  const { error, onSubmit } = useSubmit(async () => {
    unwrap(
      await client.PATCH("/admin/projects/{projectId}/limits", {
        params: { path: { projectId: props.project.id } },
        body: { rpm_limit: rpm.trim() === "" ? null : Number(rpm), daily_cap_usd: cap.trim() === "" ? null : cap.trim() },
      }),
    );
    props.onSaved();
  });

  return (
    <section className="panel" aria-labelledby="limits-title">
      <h2 id="limits-title">Limits of {props.project.name}</h2>
      <form onSubmit={onSubmit} className="fields">
        <label>
          Requests per minute <span className="hint">(empty: no limit)</span>
          <input name="rpm_limit" inputMode="numeric" pattern="[0-9]*" value={rpm} onChange={(event) => setRpm(event.target.value)} />
        </label>
        <label>
          Daily cap, USD <span className="hint">(empty: no cap)</span>
          <input name="daily_cap_usd" inputMode="decimal" value={cap} onChange={(event) => setCap(event.target.value)} />
        </label>
        <div className="actions">
          <button type="submit">Save limits</button>
          <button type="button" onClick={props.onClose}>
            Close
          </button>
        </div>
      </form>
      {error && <ErrorNote message={error} />}
    </section>
  );
}
