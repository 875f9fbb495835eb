// A form's submission: the default action prevented, the last error cleared, the API's refusal kept in
// words for the form to show, and whether a submission is under way (a form may disable its button).
import { useState } from "react";
import { describeError } from "../api/client";

export function useSubmit(run: () => Promise<void>) {
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  async function onSubmit(event: React.FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await run();
    } catch (failure) {
      setError(describeError(failure));
    } finally {
      setBusy(false);
    }
  }
  return { error, busy, onSubmit };
}
