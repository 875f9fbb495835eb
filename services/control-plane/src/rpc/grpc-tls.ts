// The gRPC server's credentials: insecure unless a certificate is configured; with a client CA, mutual
// TLS (a data plane must present a certificate that CA signed). The files are read again as they change
// (grpc-js's certificate-provider credentials; CertificateFiles keeps the last good pair).
import * as grpc from "@grpc/grpc-js";
import { CertificateFiles } from "@gateway/proto";
import type { ControlPlaneConfig } from "../config";

export function grpcServerCredentials(config: ControlPlaneConfig, onProblem: (message: string) => void): grpc.ServerCredentials {
  const tls = config.grpcTls;
  if (!tls) return grpc.ServerCredentials.createInsecure();
  const files = new CertificateFiles({
    certificateFile: tls.certificateFile,
    privateKeyFile: tls.privateKeyFile,
    caCertificateFile: tls.clientCaFile,
    refreshIntervalMs: config.tlsReloadIntervalMs,
    onProblem,
  });
  // grpc-js 1.14 names these parameters the other way round in its types, but uses the first as the
  // server's own certificate and the second (optional) as the CA of client certificates.
  return grpc.experimental.createCertificateProviderServerCredentials(
    files,
    tls.clientCaFile ? files : null,
    tls.clientCaFile !== undefined,
  );
}
