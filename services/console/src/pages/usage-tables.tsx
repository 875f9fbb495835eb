// The usage page's tables: per model over the range with the range's total, and per UTC day and model: the
// API's `by_model`, `total` and rows. Token columns are the API's `tokens` by type; amounts are exact.
import { Money } from "../components/figures";
import { type ModelTotals, TOKEN_TYPES, type Totals, type UsageRow } from "./usage-figures";

const numberFormat = new Intl.NumberFormat("en-US");
// The share of input the provider served from its cache (the API's cached_share): what affinity keeps high.
const percent = new Intl.NumberFormat("en-US", { style: "percent", minimumFractionDigits: 1, maximumFractionDigits: 1 });

function TokenCells({ tokens }: { tokens: Totals["tokens"] }) {
  return (
    <>
      {TOKEN_TYPES.map(({ type, title }) => (
        <td key={type} data-label={`${title} tokens`} data-field={`tokens_${type}`}>
          {numberFormat.format(tokens[type])}
        </td>
      ))}
    </>
  );
}

const TokenHeaders = () => (
  <>
    {TOKEN_TYPES.map(({ type, title }) => (
      <th key={type} scope="col">
        {title} tokens
      </th>
    ))}
  </>
);

/** A model's figures over the range, or the range's total. */
function ModelRow({ id, name, totals }: { id: string; name: string; totals: Totals }) {
  return (
    <tr data-model={id}>
      <th scope="row" data-label="Model">
        {name}
      </th>
      <td data-label="Requests" data-field="requests">
        {totals.requests}
      </td>
      <TokenCells tokens={totals.tokens} />
      <td data-label="Input from cache" data-field="cached_share">
        {percent.format(totals.cached_share)}
      </td>
      <td data-label="Spend" data-field="cost">
        <Money value={totals.cost} />
      </td>
    </tr>
  );
}

export function ModelTable({ caption, models, total }: { caption: string; models: ModelTotals[]; total: Totals }) {
  return (
    <div className="table-wrap">
      <table className="cards" data-table="models">
        <caption>{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Model</th>
            <th scope="col">Requests</th>
            <TokenHeaders />
            <th scope="col">Input from cache</th>
            <th scope="col">Spend</th>
          </tr>
        </thead>
        <tbody>
          {models.map((m) => (
            <ModelRow key={m.model} id={m.model} name={m.model || "no model"} totals={m} />
          ))}
        </tbody>
        <tfoot>
          <ModelRow id="total" name="Total" totals={total} />
        </tfoot>
      </table>
    </div>
  );
}

export function DayModelTable({ caption, rows }: { caption: string; rows: UsageRow[] }) {
  return (
    <div className="table-wrap">
      <table className="cards" data-table="rows">
        <caption>{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Day (UTC)</th>
            <th scope="col">Model</th>
            <th scope="col">Requests</th>
            <TokenHeaders />
            <th scope="col">Spend</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={`${row.day} ${row.model}`} data-day={row.day} data-model={row.model}>
              <th scope="row" data-label="Day (UTC)">
                {row.day}
              </th>
              <td data-label="Model">{row.model || "no model"}</td>
              <td data-label="Requests" data-field="requests">
                {row.requests}
              </td>
              <TokenCells tokens={row.tokens} />
              <td data-label="Spend" data-field="cost">
                <Money value={row.cost} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
