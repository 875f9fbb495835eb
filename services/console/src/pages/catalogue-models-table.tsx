// Catalogue models as a table (cards below 760 px): tiers, purposes, and each access path with its
// prices per component (USD per million tokens or USD each) and what of them was verified.
import type { CatalogueModel } from "../api/client";
import { Money } from "../components/figures";

type Path = CatalogueModel["paths"][number];
type Rate = Path["price"]["rates"][number];

const tokens = new Intl.NumberFormat("en-US");

const list = (values: string[], none: string) => (values.length > 0 ? values.join(", ") : <span className="muted">{none}</span>);

function Rates({ rates, verified }: { rates: Rate[]; verified: string[] }) {
  if (rates.length === 0) return <span className="muted">no price</span>;
  return (
    <ul className="rates">
      {rates.map((rate) => {
        const checked = verified.includes(rate.component);
        return (
          <li key={rate.component} data-component={rate.component} data-verified={checked}>
            <span className="component">{rate.component}</span> <Money value={rate.amount} />
            <span className="unit">{rate.unit === "each" ? " each" : " /M tokens"}</span>
            {checked && (
              <span className="checked" title="checked against the provider's own price list">
                {" "}
                ✓<span className="visually-hidden">verified</span>
              </span>
            )}
          </li>
        );
      })}
    </ul>
  );
}

function AccessPath({ path, index }: { path: Path; index: number }) {
  const { price } = path;
  return (
    <div className="path" data-path={index}>
      <div>
        <strong data-field="provider">{path.provider}</strong> <code data-field="upstream_model">{path.upstream_model}</code>{" "}
        <span className={price.verified ? "badge verified" : "badge unverified"} data-field="verified">
          {price.verified ? "verified" : "not verified"}
        </span>
      </div>
      <Rates rates={price.rates} verified={price.verified_components} />
      {price.long_context && (
        <div className="tier-rates" data-field="long_context">
          Above {tokens.format(price.long_context.above_input_tokens)} input tokens:
          <Rates
            rates={price.long_context.rates}
            verified={price.verified_components.includes("long_context") ? price.long_context.rates.map((rate) => rate.component) : []}
          />
        </div>
      )}
      {price.service_tiers.map((tier) => (
        <div className="tier-rates" key={tier.tier} data-field={`service_tier_${tier.tier}`}>
          At the {tier.tier} service tier:
          <Rates
            rates={tier.rates}
            verified={price.verified_components.includes("service_tiers") ? tier.rates.map((rate) => rate.component) : []}
          />
        </div>
      ))}
      {price.source && (
        <details className="source">
          <summary>Source</summary>
          {price.source}
        </details>
      )}
    </div>
  );
}

export function CatalogueModelsTable({ models, caption }: { models: CatalogueModel[]; caption: string }) {
  return (
    <div className="table-wrap">
      <table className="cards catalogue">
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Model</th>
            <th scope="col">Tiers</th>
            <th scope="col">Purposes</th>
            <th scope="col">Context / output tokens</th>
            <th scope="col">Access paths, prices (USD) and verification</th>
          </tr>
        </thead>
        <tbody>
          {models.map((model) => (
            <tr key={model.id} data-model={model.id}>
              <th scope="row" data-label="Model">
                {model.id} <span className="id">by {model.owned_by}</span>
              </th>
              <td data-label="Tiers" data-field="tiers">
                {list(model.tiers, model.curated ? "none" : "inventory")}
              </td>
              <td data-label="Purposes" data-field="purposes">
                {list(model.purposes, "none")}
              </td>
              <td data-label="Context / output tokens" data-field="tokens">
                {tokens.format(model.context_length)} / {tokens.format(model.max_output_tokens)}
              </td>
              <td data-label="Access paths">
                {model.paths.map((path, index) => (
                  <AccessPath key={`${path.provider}-${path.upstream_model}`} path={path} index={index} />
                ))}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
