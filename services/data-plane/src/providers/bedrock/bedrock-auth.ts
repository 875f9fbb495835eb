// How a Bedrock call proves who is calling: a Bedrock API key as a Bearer
// token, or an AWS Signature V4 (service `bedrock`) with credentials from the
// AWS default chain (environment, shared files and profiles, web identity,
// container / EKS Pod Identity, IMDS). Signing is @smithy/signature-v4's, the
// code the AWS SDKs sign with; the credentials are held by RefreshingCredential,
// so they are refreshed before they expire, off the request path, once however
// many requests wait.
import { Hash } from "@smithy/hash-node";
import { HttpRequest } from "@smithy/protocol-http";
import { SignatureV4 } from "@smithy/signature-v4";
import type { UpstreamCall } from "../provider-adapter";
import { errorKind, type Expiring, RefreshingCredential, type RefreshingCredentialOptions } from "../cloud/refreshing-credential";
import { type CredentialLog, UpstreamCredentialsError, type UpstreamAuth } from "../cloud/upstream-auth";

/** AWS credentials as the credential providers give them (the shape of @smithy/types' AwsCredentialIdentity). */
export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  expiration?: Date;
}

export type AwsCredentialSource = () => Promise<AwsCredentials>;

/** The signing name in Bedrock's credential scope (`{date}/{region}/bedrock/aws4_request`), not the host's `bedrock-runtime`. */
export const BEDROCK_SIGNING_NAME = "bedrock";

/** `Authorization: Bearer <Bedrock API key>`; the key never changes while the process runs. */
export class BedrockApiKeyAuth implements UpstreamAuth {
  constructor(private readonly apiKey: string) {}

  async headers(_url: string, call: UpstreamCall): Promise<Record<string, string>> {
    return { ...call.headers, authorization: `Bearer ${this.apiKey}` };
  }

  close(): void {}
}

export interface SigV4AuthOptions {
  provider: string;
  region: string;
  /** Where credentials come from; one fetch per call of it (it must not serve a stale cache). */
  source: AwsCredentialSource;
  log: CredentialLog;
  refresh?: RefreshingCredentialOptions;
}

/** Signature V4 over POST, the path as sent, the host, x-amz-date, the call's own headers and the body's hash. */
export class SigV4Auth implements UpstreamAuth {
  readonly credentials: RefreshingCredential<AwsCredentials>;
  private readonly signer: SignatureV4;

  constructor(private readonly options: SigV4AuthOptions) {
    this.credentials = new RefreshingCredential(() => this.fetch(), options.refresh);
    this.signer = new SignatureV4({
      service: BEDROCK_SIGNING_NAME,
      region: options.region,
      credentials: () => this.credentials.get(),
      sha256: Hash.bind(null, "sha256"),
    });
  }

  async headers(url: string, call: UpstreamCall): Promise<Record<string, string>> {
    const target = new URL(url);
    const request = new HttpRequest({
      method: "POST",
      protocol: target.protocol,
      hostname: target.hostname,
      port: target.port === "" ? undefined : Number(target.port),
      path: target.pathname,
      query: queryOf(target.searchParams),
      // The host as the HTTP client will send it (with a non-default port), which the signature covers.
      headers: { ...call.headers, host: target.host },
      body: call.body,
    });
    const signed = await this.signer.sign(request);
    // The HTTP client writes Host from the URL itself.
    const { host: _host, ...headers } = signed.headers;
    return headers;
  }

  refused(): void {
    this.credentials.invalidate();
  }

  close(): void {
    this.credentials.close();
  }

  private async fetch(): Promise<Expiring<AwsCredentials>> {
    let credentials: AwsCredentials;
    try {
      credentials = await this.options.source();
    } catch (error) {
      // The provider's error names where the chain looked; it never holds a secret, but only its kind is logged.
      const reason = errorKind(error);
      this.options.log({ provider: this.options.provider, reason }, "no AWS credentials for the Bedrock path");
      throw new UpstreamCredentialsError(`no AWS credentials (${reason})`, { cause: error });
    }
    return { value: credentials, expiresAtMs: credentials.expiration?.getTime() };
  }
}

function queryOf(params: URLSearchParams): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  for (const [name, value] of params) {
    const held = query[name];
    query[name] = held === undefined ? value : Array.isArray(held) ? [...held, value] : [held, value];
  }
  return query;
}
