// Each data plane's pools of provider keys (docs/providers.md, "Pools of keys"), from its latest report:
// one row per key, named by its fingerprint (the key itself never leaves its data plane but upstream),
// with its group, weight, limits, state and last minute's use on that data plane.
import type { Schemas } from "../api/client";
import { Time } from "../components/figures";
import { Empty } from "../components/states";

type DataPlaneHealth = Schemas["DataPlaneHealth"];

const STATE_WORDS: Record<string, string> = {
  active: "active",
  cooling: "cooling (after a 429) until",
  refused: "refused (401/403), retried",
};

const limit = (value: number | null, unit: string) => (value === null ? `no ${unit} limit` : `${value.toLocaleString("en-US")} ${unit}`);

export function ProviderKeysTable({ dataPlanes }: { dataPlanes: DataPlaneHealth[] }) {
  const rows = dataPlanes.flatMap((dataPlane) =>
    dataPlane.key_pools.flatMap((pool) => pool.keys.map((key) => ({ replica: dataPlane.replica_id, pool, key }))),
  );
  if (rows.length === 0) return <Empty>No data plane has reported a provider key.</Empty>;
  return (
    <div className="table-wrap">
      <table className="cards" aria-labelledby="provider-keys-title">
        <thead>
          <tr>
            <th scope="col">Data plane</th>
            <th scope="col">Pool</th>
            <th scope="col">Key</th>
            <th scope="col">Group</th>
            <th scope="col">Weight, limits</th>
            <th scope="col">State</th>
            <th scope="col">Last minute</th>
          </tr>
        </thead>
        <tbody>
          {rows.map(({ replica, pool, key }) => (
            <tr
              key={`${replica} ${pool.pool} ${key.fingerprint}`}
              data-data-plane={replica}
              data-pool={pool.pool}
              data-key={key.fingerprint}
            >
              <th scope="row" data-label="Data plane">
                {replica}
              </th>
              <td data-label="Pool">
                <code>{pool.pool}</code>
                {pool.source !== pool.pool && <span className="id">from {pool.source}</span>}
              </td>
              <td data-label="Key">
                <code data-field="fingerprint">{key.fingerprint}</code>
              </td>
              <td data-label="Group" data-field="group">
                {key.group}
              </td>
              <td data-label="Weight, limits">
                <span data-field="weight">{key.weight}</span>
                <span className="id">
                  {limit(key.rpm, "rpm")}, {limit(key.tpm, "tpm")} (the whole gateway's)
                </span>
              </td>
              <td data-label="State">
                <span className={`status status-${key.state}`} data-field="state">
                  {STATE_WORDS[key.state] ?? key.state}
                </span>
                {key.until && (
                  <>
                    {" "}
                    <Time iso={key.until} />
                  </>
                )}
              </td>
              <td data-label="Last minute">
                <span data-field="requests_last_minute">{key.requests_last_minute}</span> requests
                <span className="id">{key.tokens_last_minute.toLocaleString("en-US")} tokens</span>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
