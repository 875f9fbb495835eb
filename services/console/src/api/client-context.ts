// The signed-in operator's admin API client, handed to every page through React context: app.tsx
// provides it, the pages read it with useClient (a module of its own, so pages do not import the shell).
import { createContext, useContext } from "react";
import type { AdminClient } from "./client";

export const ClientContext = createContext<AdminClient | undefined>(undefined);

/** The signed-in operator's admin API client. */
export function useClient(): AdminClient {
  const client = useContext(ClientContext);
  if (!client) throw new Error("useClient outside a session");
  return client;
}
