// Sign-in with the admin token: checked against the admin API before it is kept (sessionStorage).
import { useState } from "react";
import { adminClient, unwrap } from "../api/client";
import { adminTokenSession } from "../api/session";
import { ErrorNote } from "../components/states";
import { useSubmit } from "../components/use-submit";

export function SignInPage(props: { reason: string | undefined; onSignedIn: (token: string) => void }) {
  const [token, setToken] = useState("");
  // A cheap call that needs the token: the API's own answer says whether it is right.
  const { error, busy, onSubmit } = useSubmit(async () => {
    unwrap(await adminClient(adminTokenSession(token), () => {}).GET("/admin/projects"));
    props.onSignedIn(token);
  });

  return (
    <main className="sign-in">
      <h1>Gateway console</h1>
      {props.reason && <ErrorNote message={props.reason} />}
      <form onSubmit={onSubmit}>
        <label htmlFor="admin-token">Admin token</label>
        <input
          id="admin-token"
          type="password"
          autoComplete="current-password"
          required
          value={token}
          onChange={(event) => setToken(event.target.value)}
        />
        <p className="hint">The control plane's GATEWAY_ADMIN_TOKEN. Kept in this tab only, until you sign out or close it.</p>
        <button type="submit" disabled={busy}>
          {busy ? "Signing in…" : "Sign in"}
        </button>
        {error && <ErrorNote message={error} />}
      </form>
    </main>
  );
}
