// A failed call as a data plane receives it: the table's gRPC status, the message as details and the
// table code in metadata (the data plane decides from that code whether it is an outage).
import * as grpc from "@grpc/grpc-js";
import { ERROR_CODE_METADATA_KEY, type GatewayError } from "@gateway/proto";

export function toServiceError(error: GatewayError): Partial<grpc.StatusObject> {
  const metadata = new grpc.Metadata();
  metadata.set(ERROR_CODE_METADATA_KEY, error.kind);
  return { code: error.grpcStatus, details: error.message, metadata };
}
