// TLS certificates and keys from files, for both planes' gRPC link and the admin API: read and checked
// at start-up (a missing or mismatched file stops the start, naming it), then read again every
// TLS_RELOAD_INTERVAL_MS by grpc-js's own FileWatcherCertificateProvider, so a rotated certificate is
// taken without a restart. Only material that makes a TLS context and differs from the current one is
// passed on: a pair caught half-rewritten keeps the last good one (grpc-js alone would drop every
// connection until the next read).
import { experimental } from "@grpc/grpc-js";
import { readFileSync } from "node:fs";
import { createSecureContext } from "node:tls";

type IdentityUpdate = experimental.IdentityCertificateUpdate;
type CaUpdate = experimental.CaCertificateUpdate;
type Listener<T> = (update: T | null) => void;

export class TlsFilesError extends Error {}

export interface CertificateFilesConfig {
  /** This side's certificate (chain) and private key, PEM; both or neither. */
  certificateFile?: string;
  privateKeyFile?: string;
  /** The CA that the peer's certificate must chain to, PEM. */
  caCertificateFile?: string;
  refreshIntervalMs: number;
  /** A reload that was not taken, in words (logged by the caller). */
  onProblem: (message: string) => void;
}

function read(file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (error) {
    throw new TlsFilesError(`cannot read ${file}: ${(error as Error).message}`);
  }
}

/** Why the material makes no TLS context (a mismatched pair, not PEM), or undefined when it does. */
function unusable(material: { cert?: Buffer; key?: Buffer; ca?: Buffer }): string | undefined {
  try {
    createSecureContext(material);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

const sameIdentity = (a: IdentityUpdate, b: IdentityUpdate) => a.certificate.equals(b.certificate) && a.privateKey.equals(b.privateKey);

/** A grpc-js certificate provider (identity, CA or both) over files; also what the admin API's HTTPS server reloads from. */
export class CertificateFiles implements experimental.CertificateProvider {
  private identity: IdentityUpdate | undefined;
  private ca: CaUpdate | undefined;
  private readonly identityListeners = new Set<Listener<IdentityUpdate>>();
  private readonly caListeners = new Set<Listener<CaUpdate>>();
  private readonly watcher: experimental.FileWatcherCertificateProvider;
  private readonly fromWatcher = {
    identity: (update: IdentityUpdate | null) => this.takeIdentity(update),
    ca: (update: CaUpdate | null) => this.takeCa(update),
  };

  /** Reads the files now: throws TlsFilesError when one is missing or they make no TLS context. */
  constructor(private readonly config: CertificateFilesConfig) {
    const { certificateFile, privateKeyFile, caCertificateFile } = config;
    if ((certificateFile === undefined) !== (privateKeyFile === undefined))
      throw new TlsFilesError("a certificate file needs its private key file, and the reverse");
    if (certificateFile && privateKeyFile) {
      this.identity = { certificate: read(certificateFile), privateKey: read(privateKeyFile) };
      const problem = unusable({ cert: this.identity.certificate, key: this.identity.privateKey });
      if (problem) throw new TlsFilesError(`${certificateFile} and ${privateKeyFile}: ${problem}`);
    }
    if (caCertificateFile) {
      this.ca = { caCertificate: read(caCertificateFile) };
      const problem = unusable({ ca: this.ca.caCertificate });
      if (problem) throw new TlsFilesError(`${caCertificateFile}: ${problem}`);
    }
    this.watcher = new experimental.FileWatcherCertificateProvider({
      certificateFile,
      privateKeyFile,
      caCertificateFile,
      refreshIntervalMs: config.refreshIntervalMs,
    });
  }

  /** The certificate and key in use now (the admin API's HTTPS server starts with them). */
  get currentIdentity(): IdentityUpdate | undefined {
    return this.identity;
  }

  private takeIdentity(update: IdentityUpdate | null): void {
    if (update && this.identity && sameIdentity(update, this.identity)) return;
    const problem = update ? unusable({ cert: update.certificate, key: update.privateKey }) : "cannot be read";
    if (problem || !update) {
      const files = `${this.config.certificateFile} and ${this.config.privateKeyFile}`;
      this.config.onProblem(`${files}: ${problem}; the certificate loaded before stays in use`);
      return;
    }
    this.identity = update;
    for (const listener of this.identityListeners) listener(update);
  }

  private takeCa(update: CaUpdate | null): void {
    if (update && this.ca?.caCertificate.equals(update.caCertificate)) return;
    const problem = update ? unusable({ ca: update.caCertificate }) : "cannot be read";
    if (problem || !update) {
      this.config.onProblem(`${this.config.caCertificateFile}: ${problem}; the CA loaded before stays in use`);
      return;
    }
    this.ca = update;
    for (const listener of this.caListeners) listener(update);
  }

  addIdentityCertificateListener(listener: Listener<IdentityUpdate>): void {
    if (this.identityListeners.size === 0 && this.config.certificateFile)
      this.watcher.addIdentityCertificateListener(this.fromWatcher.identity);
    this.identityListeners.add(listener);
    process.nextTick(listener, this.identity ?? null);
  }

  removeIdentityCertificateListener(listener: Listener<IdentityUpdate>): void {
    this.identityListeners.delete(listener);
    if (this.identityListeners.size === 0) this.watcher.removeIdentityCertificateListener(this.fromWatcher.identity);
  }

  addCaCertificateListener(listener: Listener<CaUpdate>): void {
    if (this.caListeners.size === 0 && this.config.caCertificateFile) this.watcher.addCaCertificateListener(this.fromWatcher.ca);
    this.caListeners.add(listener);
    process.nextTick(listener, this.ca ?? null);
  }

  removeCaCertificateListener(listener: Listener<CaUpdate>): void {
    this.caListeners.delete(listener);
    if (this.caListeners.size === 0) this.watcher.removeCaCertificateListener(this.fromWatcher.ca);
  }
}
