// A new API key, shown this once (the admin API never returns it again), with a copy button.
import { useState } from "react";

export function ShownOnce(props: { secret: string; label: string; onDismiss: () => void }) {
  const [copied, setCopied] = useState<string>();
  async function copy() {
    try {
      await navigator.clipboard.writeText(props.secret);
      setCopied("Copied.");
    } catch {
      // The clipboard needs a secure context (https or localhost): the field is selected for Ctrl+C instead.
      (document.getElementById("shown-once") as HTMLInputElement | null)?.select();
      setCopied("Selected: press Ctrl+C (or ⌘C) to copy.");
    }
  }
  return (
    <section className="panel shown-once" aria-labelledby="shown-once-title">
      <h2 id="shown-once-title">{props.label}</h2>
      <p>Copy it now: it is not shown again.</p>
      <div className="fields">
        <label htmlFor="shown-once" className="visually-hidden">
          New key
        </label>
        <input id="shown-once" readOnly value={props.secret} onFocus={(event) => event.target.select()} data-field="issued_key" />
        <button type="button" onClick={copy}>
          Copy
        </button>
        <button type="button" onClick={props.onDismiss}>
          Done
        </button>
      </div>
      {copied && (
        <p className="ok" role="status">
          {copied}
        </p>
      )}
    </section>
  );
}
