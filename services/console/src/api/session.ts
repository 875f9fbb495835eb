// Who is signed in and how their calls are authorised. Today a session is the admin token, kept in
// sessionStorage (gone when the tab closes); named operator accounts would be another kind of session
// (a server-issued cookie, say) behind the same interface, leaving the pages unchanged.
export interface Session {
  readonly kind: "admin-token";
  /** What the header shows as the signed-in operator. */
  readonly operator: string;
  /** The Authorization header for admin API calls. */
  readonly authorization: string;
}

const STORAGE_KEY = "gateway-console.session";

export function adminTokenSession(token: string): Session {
  return { kind: "admin-token", operator: "admin token", authorization: `Bearer ${token}` };
}

export function loadSession(): Session | undefined {
  const stored = sessionStorage.getItem(STORAGE_KEY);
  if (!stored) return undefined;
  try {
    const parsed = JSON.parse(stored) as { kind?: string; token?: string };
    return parsed.kind === "admin-token" && typeof parsed.token === "string" ? adminTokenSession(parsed.token) : undefined;
  } catch {
    return undefined;
  }
}

export function saveSession(token: string): Session {
  sessionStorage.setItem(STORAGE_KEY, JSON.stringify({ kind: "admin-token", token }));
  return adminTokenSession(token);
}

export function clearSession(): void {
  sessionStorage.removeItem(STORAGE_KEY);
}
