// Tops a project up. The idempotency key is made once per form, so a double click, a retry after a lost
// answer or a resubmission credits once; "Another top-up" starts a new form with a new key.
import { useState } from "react";
import { type Project, unwrap } from "../api/client";
import { useClient } from "../api/client-context";
import { Money } from "../components/figures";
import { ErrorNote } from "../components/states";
import { useSubmit } from "../components/use-submit";

const newKey = () => `console-${crypto.randomUUID()}`;

export function TopUpForm(props: { project: Project; onDone: () => void; onClose: () => void }) {
  const client = useClient();
  const [idempotencyKey, setIdempotencyKey] = useState(newKey);
  const [amount, setAmount] = useState("");
  const [result, setResult] = useState<React.ReactNode>();
  // The button stays enabled while a submission is under way: a second one carries the same key and credits nothing.
  const { error, onSubmit } = useSubmit(async () => {
    const answer = unwrap(
      await client.POST("/admin/projects/{projectId}/topups", {
        params: { path: { projectId: props.project.id } },
        body: { amount_usd: amount, idempotency_key: idempotencyKey },
      }),
    );
    setResult(
      <>
        {answer.replayed ? "Already credited by this form: nothing new." : "Credited."} Balance now <Money value={answer.balance.balance} />
        .
      </>,
    );
    props.onDone();
  });

  return (
    <section className="panel" aria-labelledby="top-up-title">
      <h2 id="top-up-title">Top up {props.project.name}</h2>
      <form onSubmit={onSubmit} className="fields">
        <label>
          Amount (USD)
          <input
            name="amount_usd"
            required
            inputMode="decimal"
            pattern="[0-9]+(\.[0-9]{1,9})?"
            placeholder="10.00"
            value={amount}
            onChange={(event) => setAmount(event.target.value)}
            readOnly={result !== undefined}
          />
        </label>
        <p className="hint">
          Idempotency key <code data-field="idempotency_key">{idempotencyKey}</code>: this form credits once, however often it is sent.
        </p>
        <div className="actions">
          <button type="submit">Top up</button>
          {result !== undefined && (
            <button
              type="button"
              onClick={() => {
                setIdempotencyKey(newKey());
                setAmount("");
                setResult(undefined);
              }}
            >
              Another top-up
            </button>
          )}
          <button type="button" onClick={props.onClose}>
            Close
          </button>
        </div>
      </form>
      {result !== undefined && (
        <p className="ok" role="status">
          {result}
        </p>
      )}
      {error && <ErrorNote message={error} />}
    </section>
  );
}
