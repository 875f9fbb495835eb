// Loading, empty and error states, and the hook that loads a page's data with them.
import { type DependencyList, useCallback, useEffect, useState } from "react";
import { describeError } from "../api/client";

export type Loaded<T> = { state: "loading" } | { state: "error"; message: string } | { state: "ready"; data: T };

/** Runs `load` when `deps` change; `reload` runs it again (after a change). A stale answer is dropped. */
export function useLoad<T>(load: () => Promise<T>, deps: DependencyList): { loaded: Loaded<T>; reload: () => void } {
  const [loaded, setLoaded] = useState<Loaded<T>>({ state: "loading" });
  const [round, setRound] = useState(0);
  // biome-ignore lint/correctness/useExhaustiveDependencies: the caller's deps say when `load` changes
  const run = useCallback(load, deps);
  // biome-ignore lint/correctness/useExhaustiveDependencies: `round` changing is what reload asks for: the same load again
  useEffect(() => {
    let current = true;
    run().then(
      (data) => current && setLoaded({ state: "ready", data }),
      (error: unknown) => current && setLoaded({ state: "error", message: describeError(error) }),
    );
    return () => {
      current = false;
    };
  }, [run, round]);
  return { loaded, reload: () => setRound((n) => n + 1) };
}

export const Loading = ({ what }: { what: string }) => (
  <p className="loading" role="status" aria-live="polite">
    Loading {what}…
  </p>
);

export const ErrorNote = ({ message }: { message: string }) => (
  <p className="error" role="alert">
    {message}
  </p>
);

export const Empty = ({ children }: { children: React.ReactNode }) => <p className="empty">{children}</p>;
