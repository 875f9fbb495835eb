// An action on the admin API: the last error cleared, the API's refusal kept in words for the page to show,
// and whether one is under way (a form may disable its button). `attempt` runs any action; `onSubmit` is a
// form's submission (its default prevented).
import { useState } from "react";
import { describeError } from "../api/client";

export function useAttempt() {
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  async function attempt(run: () => Promise<void>, after?: () => void) {
    setBusy(true);
    setError(undefined);
    try {
      await run();
    } catch (failure) {
      setError(describeError(failure));
    } finally {
      setBusy(false);
      after?.();
    }
  }
  return { error, busy, attempt };
}

export function useSubmit(run: () => Promise<void>) {
  const { error, busy, attempt } = useAttempt();
  const onSubmit = (event: React.FormEvent) => {
    event.preventDefault();
    return attempt(run);
  };
  return { error, busy, onSubmit };
}
