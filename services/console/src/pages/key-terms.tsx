// A key's own terms as form fields (requests per minute, daily cap, budget, expiry), shared by issuing
// a key and changing one. Expiry is entered in UTC, as the console shows every time.
import type { Key } from "../api/client";

export interface Terms {
  rpm: string;
  cap: string;
  budget: string;
  expires: string;
}

export const NO_TERMS: Terms = { rpm: "", cap: "", budget: "", expires: "" };

export const termsOf = (key: Key): Terms => ({
  rpm: key.rpm_limit?.toString() ?? "",
  cap: key.daily_cap?.usd ?? "",
  budget: key.budget?.usd ?? "",
  expires: key.expires_at?.slice(0, 16) ?? "",
});

/** The API's fields; an empty field is null (none), which a change sends to clear it and an issue leaves out. */
export function termsBody(terms: Terms) {
  const text = (value: string) => (value.trim() === "" ? null : value.trim());
  return {
    rpm_limit: terms.rpm.trim() === "" ? null : Number(terms.rpm),
    daily_cap_usd: text(terms.cap),
    budget_usd: text(terms.budget),
    expires_at: terms.expires === "" ? null : `${terms.expires}:00Z`,
  };
}

export function TermsFields({ terms, onChange }: { terms: Terms; onChange: (terms: Terms) => void }) {
  const field = (name: keyof Terms) => ({
    value: terms[name],
    onChange: (event: React.ChangeEvent<HTMLInputElement>) => onChange({ ...terms, [name]: event.target.value }),
  });
  return (
    <>
      <label>
        Requests per minute <span className="hint">(empty: the project's)</span>
        <input name="rpm_limit" inputMode="numeric" pattern="[0-9]*" {...field("rpm")} />
      </label>
      <label>
        Daily cap, USD <span className="hint">(empty: the project's)</span>
        <input name="daily_cap_usd" inputMode="decimal" {...field("cap")} />
      </label>
      <label>
        Budget, USD <span className="hint">(empty: none)</span>
        <input name="budget_usd" inputMode="decimal" {...field("budget")} />
      </label>
      <label>
        Expires, UTC <span className="hint">(empty: never)</span>
        <input name="expires_at" type="datetime-local" {...field("expires")} />
      </label>
    </>
  );
}
