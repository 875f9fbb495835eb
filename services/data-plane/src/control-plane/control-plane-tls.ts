// The data plane's credentials for its control-plane link: insecure unless CONTROL_PLANE_TLS_CA_FILE is
// set; then TLS checked against that CA, and with a certificate and key of its own, mutual TLS. The files
// are read again as they change (grpc-js's certificate-provider credentials; new connections take them).
import * as grpc from "@grpc/grpc-js";
import { CertificateFiles } from "@gateway/proto";

/** The link's TLS files (config.ts reads them from the environment); no CA file: no TLS. */
export interface ControlPlaneTlsFiles {
  caFile: string;
  certificateFile: string | undefined;
  privateKeyFile: string | undefined;
}

export function controlPlaneCredentials(
  config: { controlPlaneTls: ControlPlaneTlsFiles | undefined; tlsReloadIntervalMs: number },
  onProblem: (message: string) => void,
): grpc.ChannelCredentials {
  const tls = config.controlPlaneTls;
  if (!tls) return grpc.credentials.createInsecure();
  const files = new CertificateFiles({
    caCertificateFile: tls.caFile,
    certificateFile: tls.certificateFile,
    privateKeyFile: tls.privateKeyFile,
    refreshIntervalMs: config.tlsReloadIntervalMs,
    onProblem,
  });
  return grpc.experimental.createCertificateProviderChannelCredentials(files, tls.certificateFile ? files : null);
}
