// A choice of one of a project's keys (the admin API's list), or none: "every key".
import { unwrap } from "../api/client";
import { useClient } from "../api/client-context";
import { useLoad } from "./states";

export function KeySelect(props: { projectId: string; value: string; noneLabel: string; onChange: (keyId: string) => void }) {
  const client = useClient();
  const { loaded } = useLoad(
    async () => unwrap(await client.GET("/admin/projects/{projectId}/keys", { params: { path: { projectId: props.projectId } } })).data,
    [client, props.projectId],
  );
  return (
    <label>
      Key
      <select value={props.value} onChange={(event) => props.onChange(event.target.value)}>
        <option value="">{props.noneLabel}</option>
        {loaded.state === "ready" &&
          loaded.data.map((key) => (
            <option key={key.id} value={key.id}>
              {key.name ?? "unnamed"} ({key.hint}, {key.id})
            </option>
          ))}
      </select>
    </label>
  );
}
