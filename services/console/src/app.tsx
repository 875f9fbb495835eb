// The console's shell: sign-in until there is a session, then the navigation and the current page.
import { useCallback, useMemo, useState } from "react";
import { adminClient } from "./api/client";
import { ClientContext } from "./api/client-context";
import { clearSession, loadSession, type Session, saveSession } from "./api/session";
import { Link, usePlace } from "./components/router";
import { AuditLogPage } from "./pages/audit-log-page";
import { CataloguePage } from "./pages/catalogue-page";
import { HealthPage } from "./pages/health-page";
import { KeysPage } from "./pages/keys-page";
import { LedgerPage } from "./pages/ledger-page";
import { ProjectsPage } from "./pages/projects-page";
import { SignInPage } from "./pages/sign-in-page";
import { UsagePage } from "./pages/usage-page";

const PAGES = [
  { page: "projects", title: "Projects" },
  { page: "keys", title: "Keys" },
  { page: "usage", title: "Usage" },
  { page: "ledger", title: "Ledger" },
  { page: "catalogue", title: "Catalogue" },
  { page: "health", title: "Health" },
  { page: "audit", title: "Audit log" },
] as const;

export function App() {
  const [session, setSession] = useState<Session | undefined>(loadSession);
  const [signedOutReason, setSignedOutReason] = useState<string>();
  const place = usePlace();
  const signOut = useCallback((reason?: string) => {
    clearSession();
    setSignedOutReason(reason);
    setSession(undefined);
  }, []);
  const client = useMemo(
    () => session && adminClient(session, () => signOut("The admin API refused the token: sign in again.")),
    [session, signOut],
  );

  if (!session || !client)
    return (
      <SignInPage
        reason={signedOutReason}
        onSignedIn={(token) => {
          setSignedOutReason(undefined);
          setSession(saveSession(token));
        }}
      />
    );

  const current = PAGES.find((p) => p.page === place.page) ?? PAGES[0];
  return (
    <ClientContext.Provider value={client}>
      <header className="top">
        <span className="brand">Gateway console</span>
        <nav aria-label="Pages">
          {PAGES.map((p) => (
            <Link key={p.page} page={p.page} current={p.page === current.page} params={keepProject(place.params)}>
              {p.title}
            </Link>
          ))}
        </nav>
        <span className="operator">
          Signed in with the {session.operator}{" "}
          <button type="button" onClick={() => signOut()}>
            Sign out
          </button>
        </span>
      </header>
      <main>
        {current.page === "projects" && <ProjectsPage />}
        {current.page === "keys" && <KeysPage projectId={place.params.get("project") ?? undefined} />}
        {current.page === "usage" && <UsagePage projectId={place.params.get("project") ?? undefined} />}
        {current.page === "ledger" && <LedgerPage projectId={place.params.get("project") ?? undefined} params={place.params} />}
        {current.page === "catalogue" && <CataloguePage />}
        {current.page === "health" && <HealthPage />}
        {current.page === "audit" && <AuditLogPage />}
      </main>
    </ClientContext.Provider>
  );
}

/** The chosen project follows the operator from page to page. */
function keepProject(params: URLSearchParams): Record<string, string> {
  const project = params.get("project");
  return project ? { project } : {};
}
