// The gRPC contract between the planes: the loaded service definition, a
// client constructor, and the generated message types. Depends on nothing in
// the services.
import * as grpc from "@grpc/grpc-js";
import { loadSync } from "@grpc/proto-loader";
import path from "node:path";
import type { ProtoGrpcType } from "./generated/control_plane";
import { loaderOptions } from "./loader-options";

const protoRoot = path.resolve(import.meta.dirname, "..");
const packageDefinition = loadSync("gateway/v1/control_plane.proto", { ...loaderOptions, includeDirs: [protoRoot] });
const loaded = grpc.loadPackageDefinition(packageDefinition) as unknown as ProtoGrpcType;

export const ControlPlaneService = loaded.gateway.v1.ControlPlane.service;
export const ControlPlaneClientConstructor = loaded.gateway.v1.ControlPlane;

/** Metadata key and scheme the planes use to authenticate each other. */
export const AUTH_METADATA_KEY = "authorization";
export const bearer = (token: string): string => `Bearer ${token}`;

export type { ControlPlaneClient, ControlPlaneHandlers } from "./generated/gateway/v1/ControlPlane";
export type { AccessPath, AccessPath__Output } from "./generated/gateway/v1/AccessPath";
export type { DrawRequest__Output } from "./generated/gateway/v1/DrawRequest";
export type { DrawResponse, DrawResponse__Output } from "./generated/gateway/v1/DrawResponse";
export type { Draw } from "./generated/gateway/v1/Draw";
export type { LeaseRequest__Output } from "./generated/gateway/v1/LeaseRequest";
export type { LeaseResponse, LeaseResponse__Output } from "./generated/gateway/v1/LeaseResponse";
export type { RenewResponse, RenewResponse__Output } from "./generated/gateway/v1/RenewResponse";
export type { DataPlaneReport, DataPlaneReport__Output } from "./generated/gateway/v1/DataPlaneReport";
export type { Catalogue, Catalogue__Output } from "./generated/gateway/v1/Catalogue";
export type { CatalogueDefaults__Output } from "./generated/gateway/v1/CatalogueDefaults";
export type { ControlEvent, ControlEvent__Output } from "./generated/gateway/v1/ControlEvent";
export type { Model, Model__Output } from "./generated/gateway/v1/Model";
export type { Price, Price__Output } from "./generated/gateway/v1/Price";
export type { TokenRates as ProtoTokenRates, TokenRates__Output as ProtoTokenRates__Output } from "./generated/gateway/v1/TokenRates";
export type { LongContextPrice, LongContextPrice__Output } from "./generated/gateway/v1/LongContextPrice";
export type { CostPart, CostPart__Output } from "./generated/gateway/v1/CostPart";
export type { ProjectLimits__Output } from "./generated/gateway/v1/ProjectLimits";
export type { ReleaseResponse, ReleaseResponse__Output } from "./generated/gateway/v1/ReleaseResponse";
export type { ReserveRequest__Output } from "./generated/gateway/v1/ReserveRequest";
export type { ReserveResponse, ReserveResponse__Output } from "./generated/gateway/v1/ReserveResponse";
export type { SettleRequest__Output } from "./generated/gateway/v1/SettleRequest";
export type { SettleResponse, SettleResponse__Output } from "./generated/gateway/v1/SettleResponse";
export type { ValidateKeyResponse, ValidateKeyResponse__Output } from "./generated/gateway/v1/ValidateKeyResponse";

export {
  ERROR_CODE_METADATA_KEY,
  ERROR_TABLE,
  type ErrorBody,
  type ErrorCode,
  type ErrorKind,
  GatewayError,
  isErrorCode,
} from "./errors";
export { discardBody } from "./discard-body";
export { echo, echoList } from "./echo";
export { answerClientError, BAD_URL_MESSAGE, routingFailure, shuttingDown, TIMEOUT_CHECK_INTERVAL_MS } from "./framework-errors";

export { protoField } from "./loader-options";
export { API_KEY_PATTERN } from "./api-key";
export {
  DRAW_JOURNAL_KEEP_MS,
  type DrawEntry,
  type DrawFields,
  decodeDrawEntry,
  drawElement,
  drawJournalKey,
  encodeDrawEntry,
  encodeOlderEntry,
} from "./draw-journal";
export { INT64_MAX, TOKENS_MAX, wireAmount, wireTokens } from "./wire-numbers";
export { type HealthDetails, type MetricsText, type RunningMetricsServer, startMetricsServer } from "./metrics-server";
export { CertificateFiles, type CertificateFilesConfig, TlsFilesError } from "./tls-files";
