// OAuth2 access tokens for Vertex AI from google-auth-library: a service-account
// key file (<NAME>_CREDENTIALS_FILE, read into the library's `JWT` client) or
// Application Default Credentials (`GoogleAuth`: GOOGLE_APPLICATION_CREDENTIALS,
// workload identity, the metadata server), with the cloud-platform scope. The library signs the JWT and exchanges it; the
// gateway only asks it for a token and reads the token's expiry.
//
// The library caches tokens and refreshes them on the request path; here each
// fetch is meant to get a fresh one (RefreshingCredential calls it a margin
// before expiry, off the request path), so the client's eager-refresh threshold
// is set above that margin: at that moment the library sees its token as
// expiring and exchanges again.
import { readFile } from "node:fs/promises";
import { type AuthClient, GoogleAuth, JWT } from "google-auth-library";
import { errorKind, type Expiring } from "../cloud/refreshing-credential";
import { UpstreamCredentialsError } from "../cloud/upstream-auth";

export const CLOUD_PLATFORM_SCOPE = "https://www.googleapis.com/auth/cloud-platform";
/** Where the library sends every service-account exchange, whatever the key file's `token_uri` says. */
const GOOGLE_TOKEN_URL = "https://oauth2.googleapis.com/token";
/** A token whose expiry the client does not report is used this long (Google's tokens last an hour). */
const UNKNOWN_LIFETIME_MS = 30 * 60_000;

export interface GoogleTokenOptions {
  /** A service-account key file; absent, Application Default Credentials. */
  credentialsFile?: string;
  /** How long before expiry the caller refreshes (RefreshingCredential's margin). */
  refreshMarginMs: number;
  now?: () => number;
}

/**
 * A function that fetches a new access token and its expiry; UpstreamCredentialsError when none can be had.
 * `forced`: the token held was refused, so the client's cached one is dropped and a new one exchanged.
 */
export function googleAccessToken(options: GoogleTokenOptions): (forced?: boolean) => Promise<Expiring<string>> {
  const now = options.now ?? Date.now;
  let client: Promise<AuthClient> | undefined;
  return async (forced = false) => {
    client ??= authClient(options).catch((error: unknown) => {
      client = undefined; // a file that appears later, or ADC configured later, is found on the next try
      throw error;
    });
    const ready = await client;
    // Marked expired: the client (and a JWT client's token cache) exchanges anew instead of handing the refused token back.
    if (forced) ready.credentials = { ...ready.credentials, expiry_date: 1 };
    let token: string | null | undefined;
    try {
      token = (await ready.getAccessToken()).token;
    } catch (error) {
      throw new UpstreamCredentialsError(`the Google token exchange failed: ${describe(error)}`);
    }
    if (!token) throw new UpstreamCredentialsError("the Google credentials gave no access token");
    const expiry = ready.credentials.expiry_date;
    return { value: token, expiresAtMs: typeof expiry === "number" && expiry > 0 ? expiry : now() + UNKNOWN_LIFETIME_MS };
  };
}

async function authClient(options: GoogleTokenOptions): Promise<AuthClient> {
  const eagerRefreshThresholdMillis = options.refreshMarginMs + 60_000;
  if (!options.credentialsFile) {
    try {
      return await new GoogleAuth({ scopes: [CLOUD_PLATFORM_SCOPE], clientOptions: { eagerRefreshThresholdMillis } }).getClient();
    } catch (error) {
      throw new UpstreamCredentialsError(`no Application Default Credentials: ${describe(error)}`);
    }
  }
  const account = await serviceAccount(options.credentialsFile);
  const client = new JWT({
    email: account.client_email,
    key: account.private_key,
    keyId: account.private_key_id,
    scopes: [CLOUD_PLATFORM_SCOPE],
    eagerRefreshThresholdMillis,
  });
  if (account.token_uri !== undefined && account.token_uri !== GOOGLE_TOKEN_URL) sendExchangesTo(client, account.token_uri);
  return client;
}

interface ServiceAccountKey {
  client_email: string;
  private_key: string;
  private_key_id?: string;
  token_uri?: string;
}

/** The key file's fields; only a service-account key is taken (the library's advice for a configured file). */
async function serviceAccount(file: string): Promise<ServiceAccountKey> {
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(await readFile(file, "utf8")) as Record<string, unknown>;
  } catch (error) {
    // Never the file's content in the message: it holds a private key.
    const reason = (error as NodeJS.ErrnoException).code ?? "not valid JSON";
    throw new UpstreamCredentialsError(`the credentials file ${file} could not be read (${reason})`);
  }
  const text = (name: string) => (typeof json[name] === "string" && json[name] !== "" ? (json[name] as string) : undefined);
  const email = text("client_email");
  const key = text("private_key");
  if (json.type !== "service_account" || !email || !key)
    throw new UpstreamCredentialsError(`the credentials file ${file} is not a service-account key (type, client_email, private_key)`);
  return { client_email: email, private_key: key, private_key_id: text("private_key_id"), token_uri: text("token_uri") };
}

/**
 * The library posts every service-account exchange to Google's endpoint; a key file naming another
 * `token_uri` (a private universe's, or a test's) gets its exchanges there. The JWT itself is still the library's.
 */
function sendExchangesTo(client: AuthClient, tokenUri: string): void {
  const target = new URL(tokenUri);
  client.transporter.interceptors.request.add({
    resolved: async (config) => {
      if (String(config.url) === GOOGLE_TOKEN_URL) config.url = target;
      return config;
    },
  });
}

/**
 * What went wrong, for the operator's log, as for every cloud: a token endpoint's HTTP status and OAuth2
 * error code, else the error's kind. Never a message (it may quote the answer) or the request (it
 * carries the signed assertion).
 */
function describe(error: unknown): string {
  const response = (error as { response?: { status?: unknown; data?: unknown } }).response;
  if (response && typeof response.status === "number") {
    const code = (response.data as { error?: unknown } | undefined)?.error;
    return `HTTP ${response.status}${typeof code === "string" && /^[a-z_]+$/.test(code) ? ` ${code}` : ""}`;
  }
  return errorKind(error);
}
