// Original file: gateway/v1/control_plane.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { Catalogue as _gateway_v1_Catalogue, Catalogue__Output as _gateway_v1_Catalogue__Output } from '../../gateway/v1/Catalogue';
import type { CheckSpendRequest as _gateway_v1_CheckSpendRequest, CheckSpendRequest__Output as _gateway_v1_CheckSpendRequest__Output } from '../../gateway/v1/CheckSpendRequest';
import type { ControlEvent as _gateway_v1_ControlEvent, ControlEvent__Output as _gateway_v1_ControlEvent__Output } from '../../gateway/v1/ControlEvent';
import type { DataPlaneReport as _gateway_v1_DataPlaneReport, DataPlaneReport__Output as _gateway_v1_DataPlaneReport__Output } from '../../gateway/v1/DataPlaneReport';
import type { DrawRequest as _gateway_v1_DrawRequest, DrawRequest__Output as _gateway_v1_DrawRequest__Output } from '../../gateway/v1/DrawRequest';
import type { DrawResponse as _gateway_v1_DrawResponse, DrawResponse__Output as _gateway_v1_DrawResponse__Output } from '../../gateway/v1/DrawResponse';
import type { GetCatalogueRequest as _gateway_v1_GetCatalogueRequest, GetCatalogueRequest__Output as _gateway_v1_GetCatalogueRequest__Output } from '../../gateway/v1/GetCatalogueRequest';
import type { LeaseRequest as _gateway_v1_LeaseRequest, LeaseRequest__Output as _gateway_v1_LeaseRequest__Output } from '../../gateway/v1/LeaseRequest';
import type { LeaseResponse as _gateway_v1_LeaseResponse, LeaseResponse__Output as _gateway_v1_LeaseResponse__Output } from '../../gateway/v1/LeaseResponse';
import type { ReleaseRequest as _gateway_v1_ReleaseRequest, ReleaseRequest__Output as _gateway_v1_ReleaseRequest__Output } from '../../gateway/v1/ReleaseRequest';
import type { ReleaseResponse as _gateway_v1_ReleaseResponse, ReleaseResponse__Output as _gateway_v1_ReleaseResponse__Output } from '../../gateway/v1/ReleaseResponse';
import type { RenewRequest as _gateway_v1_RenewRequest, RenewRequest__Output as _gateway_v1_RenewRequest__Output } from '../../gateway/v1/RenewRequest';
import type { RenewResponse as _gateway_v1_RenewResponse, RenewResponse__Output as _gateway_v1_RenewResponse__Output } from '../../gateway/v1/RenewResponse';
import type { ReportStateResponse as _gateway_v1_ReportStateResponse, ReportStateResponse__Output as _gateway_v1_ReportStateResponse__Output } from '../../gateway/v1/ReportStateResponse';
import type { ReserveRequest as _gateway_v1_ReserveRequest, ReserveRequest__Output as _gateway_v1_ReserveRequest__Output } from '../../gateway/v1/ReserveRequest';
import type { ReserveResponse as _gateway_v1_ReserveResponse, ReserveResponse__Output as _gateway_v1_ReserveResponse__Output } from '../../gateway/v1/ReserveResponse';
import type { SettleRequest as _gateway_v1_SettleRequest, SettleRequest__Output as _gateway_v1_SettleRequest__Output } from '../../gateway/v1/SettleRequest';
import type { SettleResponse as _gateway_v1_SettleResponse, SettleResponse__Output as _gateway_v1_SettleResponse__Output } from '../../gateway/v1/SettleResponse';
import type { SubscribeRequest as _gateway_v1_SubscribeRequest, SubscribeRequest__Output as _gateway_v1_SubscribeRequest__Output } from '../../gateway/v1/SubscribeRequest';
import type { ValidateKeyRequest as _gateway_v1_ValidateKeyRequest, ValidateKeyRequest__Output as _gateway_v1_ValidateKeyRequest__Output } from '../../gateway/v1/ValidateKeyRequest';
import type { ValidateKeyResponse as _gateway_v1_ValidateKeyResponse, ValidateKeyResponse__Output as _gateway_v1_ValidateKeyResponse__Output } from '../../gateway/v1/ValidateKeyResponse';

export interface ControlPlaneClient extends grpc.Client {
  CheckSpend(argument: _gateway_v1_CheckSpendRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_v1_ReserveResponse__Output>): grpc.ClientUnaryCall;
  CheckSpend(argument: _gateway_v1_CheckSpendRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_gateway_v1_ReserveResponse__Output>): grpc.ClientUnaryCall;
  CheckSpend(argument: _gateway_v1_CheckSpendRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_v1_ReserveResponse__Output>): grpc.ClientUnaryCall;
  CheckSpend(argument: _gateway_v1_CheckSpendRequest, callback: grpc.requestCallback<_gateway_v1_ReserveResponse__Output>): grpc.ClientUnaryCall;
  checkSpend(argument: _gateway_v1_CheckSpendRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_v1_ReserveResponse__Output>): grpc.ClientUnaryCall;
  checkSpend(argument: _gateway_v1_CheckSpendRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_gateway_v1_ReserveResponse__Output>): grpc.ClientUnaryCall;
  checkSpend(argument: _gateway_v1_CheckSpendRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_v1_ReserveResponse__Output>): grpc.ClientUnaryCall;
  checkSpend(argument: _gateway_v1_CheckSpendRequest, callback: grpc.requestCallback<_gateway_v1_ReserveResponse__Output>): grpc.ClientUnaryCall;
  
  Draw(argument: _gateway_v1_DrawRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_v1_DrawResponse__Output>): grpc.ClientUnaryCall;
  Draw(argument: _gateway_v1_DrawRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_gateway_v1_DrawResponse__Output>): grpc.ClientUnaryCall;
  Draw(argument: _gateway_v1_DrawRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_v1_DrawResponse__Output>): grpc.ClientUnaryCall;
  Draw(argument: _gateway_v1_DrawRequest, callback: grpc.requestCallback<_gateway_v1_DrawResponse__Output>): grpc.ClientUnaryCall;
  draw(argument: _gateway_v1_DrawRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_v1_DrawResponse__Output>): grpc.ClientUnaryCall;
  draw(argument: _gateway_v1_DrawRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_gateway_v1_DrawResponse__Output>): grpc.ClientUnaryCall;
  draw(argument: _gateway_v1_DrawRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_v1_DrawResponse__Output>): grpc.ClientUnaryCall;
  draw(argument: _gateway_v1_DrawRequest, callback: grpc.requestCallback<_gateway_v1_DrawResponse__Output>): grpc.ClientUnaryCall;
  
  GetCatalogue(argument: _gateway_v1_GetCatalogueRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_v1_Catalogue__Output>): grpc.ClientUnaryCall;
  GetCatalogue(argument: _gateway_v1_GetCatalogueRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_gateway_v1_Catalogue__Output>): grpc.ClientUnaryCall;
  GetCatalogue(argument: _gateway_v1_GetCatalogueRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_v1_Catalogue__Output>): grpc.ClientUnaryCall;
  GetCatalogue(argument: _gateway_v1_GetCatalogueRequest, callback: grpc.requestCallback<_gateway_v1_Catalogue__Output>): grpc.ClientUnaryCall;
  getCatalogue(argument: _gateway_v1_GetCatalogueRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_v1_Catalogue__Output>): grpc.ClientUnaryCall;
  getCatalogue(argument: _gateway_v1_GetCatalogueRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_gateway_v1_Catalogue__Output>): grpc.ClientUnaryCall;
  getCatalogue(argument: _gateway_v1_GetCatalogueRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_v1_Catalogue__Output>): grpc.ClientUnaryCall;
  getCatalogue(argument: _gateway_v1_GetCatalogueRequest, callback: grpc.requestCallback<_gateway_v1_Catalogue__Output>): grpc.ClientUnaryCall;
  
  Lease(argument: _gateway_v1_LeaseRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_v1_LeaseResponse__Output>): grpc.ClientUnaryCall;
  Lease(argument: _gateway_v1_LeaseRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_gateway_v1_LeaseResponse__Output>): grpc.ClientUnaryCall;
  Lease(argument: _gateway_v1_LeaseRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_v1_LeaseResponse__Output>): grpc.ClientUnaryCall;
  Lease(argument: _gateway_v1_LeaseRequest, callback: grpc.requestCallback<_gateway_v1_LeaseResponse__Output>): grpc.ClientUnaryCall;
  lease(argument: _gateway_v1_LeaseRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_v1_LeaseResponse__Output>): grpc.ClientUnaryCall;
  lease(argument: _gateway_v1_LeaseRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_gateway_v1_LeaseResponse__Output>): grpc.ClientUnaryCall;
  lease(argument: _gateway_v1_LeaseRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_v1_LeaseResponse__Output>): grpc.ClientUnaryCall;
  lease(argument: _gateway_v1_LeaseRequest, callback: grpc.requestCallback<_gateway_v1_LeaseResponse__Output>): grpc.ClientUnaryCall;
  
  Release(argument: _gateway_v1_ReleaseRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_v1_ReleaseResponse__Output>): grpc.ClientUnaryCall;
  Release(argument: _gateway_v1_ReleaseRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_gateway_v1_ReleaseResponse__Output>): grpc.ClientUnaryCall;
  Release(argument: _gateway_v1_ReleaseRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_v1_ReleaseResponse__Output>): grpc.ClientUnaryCall;
  Release(argument: _gateway_v1_ReleaseRequest, callback: grpc.requestCallback<_gateway_v1_ReleaseResponse__Output>): grpc.ClientUnaryCall;
  release(argument: _gateway_v1_ReleaseRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_v1_ReleaseResponse__Output>): grpc.ClientUnaryCall;
  release(argument: _gateway_v1_ReleaseRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_gateway_v1_ReleaseResponse__Output>): grpc.ClientUnaryCall;
  release(argument: _gateway_v1_ReleaseRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_v1_ReleaseResponse__Output>): grpc.ClientUnaryCall;
  release(argument: _gateway_v1_ReleaseRequest, callback: grpc.requestCallback<_gateway_v1_ReleaseResponse__Output>): grpc.ClientUnaryCall;
  
  Renew(argument: _gateway_v1_RenewRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_v1_RenewResponse__Output>): grpc.ClientUnaryCall;
  Renew(argument: _gateway_v1_RenewRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_gateway_v1_RenewResponse__Output>): grpc.ClientUnaryCall;
  Renew(argument: _gateway_v1_RenewRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_v1_RenewResponse__Output>): grpc.ClientUnaryCall;
  Renew(argument: _gateway_v1_RenewRequest, callback: grpc.requestCallback<_gateway_v1_RenewResponse__Output>): grpc.ClientUnaryCall;
  renew(argument: _gateway_v1_RenewRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_v1_RenewResponse__Output>): grpc.ClientUnaryCall;
  renew(argument: _gateway_v1_RenewRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_gateway_v1_RenewResponse__Output>): grpc.ClientUnaryCall;
  renew(argument: _gateway_v1_RenewRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_v1_RenewResponse__Output>): grpc.ClientUnaryCall;
  renew(argument: _gateway_v1_RenewRequest, callback: grpc.requestCallback<_gateway_v1_RenewResponse__Output>): grpc.ClientUnaryCall;
  
  ReportState(argument: _gateway_v1_DataPlaneReport, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_v1_ReportStateResponse__Output>): grpc.ClientUnaryCall;
  ReportState(argument: _gateway_v1_DataPlaneReport, metadata: grpc.Metadata, callback: grpc.requestCallback<_gateway_v1_ReportStateResponse__Output>): grpc.ClientUnaryCall;
  ReportState(argument: _gateway_v1_DataPlaneReport, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_v1_ReportStateResponse__Output>): grpc.ClientUnaryCall;
  ReportState(argument: _gateway_v1_DataPlaneReport, callback: grpc.requestCallback<_gateway_v1_ReportStateResponse__Output>): grpc.ClientUnaryCall;
  reportState(argument: _gateway_v1_DataPlaneReport, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_v1_ReportStateResponse__Output>): grpc.ClientUnaryCall;
  reportState(argument: _gateway_v1_DataPlaneReport, metadata: grpc.Metadata, callback: grpc.requestCallback<_gateway_v1_ReportStateResponse__Output>): grpc.ClientUnaryCall;
  reportState(argument: _gateway_v1_DataPlaneReport, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_v1_ReportStateResponse__Output>): grpc.ClientUnaryCall;
  reportState(argument: _gateway_v1_DataPlaneReport, callback: grpc.requestCallback<_gateway_v1_ReportStateResponse__Output>): grpc.ClientUnaryCall;
  
  Reserve(argument: _gateway_v1_ReserveRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_v1_ReserveResponse__Output>): grpc.ClientUnaryCall;
  Reserve(argument: _gateway_v1_ReserveRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_gateway_v1_ReserveResponse__Output>): grpc.ClientUnaryCall;
  Reserve(argument: _gateway_v1_ReserveRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_v1_ReserveResponse__Output>): grpc.ClientUnaryCall;
  Reserve(argument: _gateway_v1_ReserveRequest, callback: grpc.requestCallback<_gateway_v1_ReserveResponse__Output>): grpc.ClientUnaryCall;
  reserve(argument: _gateway_v1_ReserveRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_v1_ReserveResponse__Output>): grpc.ClientUnaryCall;
  reserve(argument: _gateway_v1_ReserveRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_gateway_v1_ReserveResponse__Output>): grpc.ClientUnaryCall;
  reserve(argument: _gateway_v1_ReserveRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_v1_ReserveResponse__Output>): grpc.ClientUnaryCall;
  reserve(argument: _gateway_v1_ReserveRequest, callback: grpc.requestCallback<_gateway_v1_ReserveResponse__Output>): grpc.ClientUnaryCall;
  
  Settle(argument: _gateway_v1_SettleRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_v1_SettleResponse__Output>): grpc.ClientUnaryCall;
  Settle(argument: _gateway_v1_SettleRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_gateway_v1_SettleResponse__Output>): grpc.ClientUnaryCall;
  Settle(argument: _gateway_v1_SettleRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_v1_SettleResponse__Output>): grpc.ClientUnaryCall;
  Settle(argument: _gateway_v1_SettleRequest, callback: grpc.requestCallback<_gateway_v1_SettleResponse__Output>): grpc.ClientUnaryCall;
  settle(argument: _gateway_v1_SettleRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_v1_SettleResponse__Output>): grpc.ClientUnaryCall;
  settle(argument: _gateway_v1_SettleRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_gateway_v1_SettleResponse__Output>): grpc.ClientUnaryCall;
  settle(argument: _gateway_v1_SettleRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_v1_SettleResponse__Output>): grpc.ClientUnaryCall;
  settle(argument: _gateway_v1_SettleRequest, callback: grpc.requestCallback<_gateway_v1_SettleResponse__Output>): grpc.ClientUnaryCall;
  
  Subscribe(argument: _gateway_v1_SubscribeRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_gateway_v1_ControlEvent__Output>;
  Subscribe(argument: _gateway_v1_SubscribeRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_gateway_v1_ControlEvent__Output>;
  subscribe(argument: _gateway_v1_SubscribeRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_gateway_v1_ControlEvent__Output>;
  subscribe(argument: _gateway_v1_SubscribeRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_gateway_v1_ControlEvent__Output>;
  
  ValidateKey(argument: _gateway_v1_ValidateKeyRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_v1_ValidateKeyResponse__Output>): grpc.ClientUnaryCall;
  ValidateKey(argument: _gateway_v1_ValidateKeyRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_gateway_v1_ValidateKeyResponse__Output>): grpc.ClientUnaryCall;
  ValidateKey(argument: _gateway_v1_ValidateKeyRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_v1_ValidateKeyResponse__Output>): grpc.ClientUnaryCall;
  ValidateKey(argument: _gateway_v1_ValidateKeyRequest, callback: grpc.requestCallback<_gateway_v1_ValidateKeyResponse__Output>): grpc.ClientUnaryCall;
  validateKey(argument: _gateway_v1_ValidateKeyRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_v1_ValidateKeyResponse__Output>): grpc.ClientUnaryCall;
  validateKey(argument: _gateway_v1_ValidateKeyRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_gateway_v1_ValidateKeyResponse__Output>): grpc.ClientUnaryCall;
  validateKey(argument: _gateway_v1_ValidateKeyRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_v1_ValidateKeyResponse__Output>): grpc.ClientUnaryCall;
  validateKey(argument: _gateway_v1_ValidateKeyRequest, callback: grpc.requestCallback<_gateway_v1_ValidateKeyResponse__Output>): grpc.ClientUnaryCall;
  
}

export interface ControlPlaneHandlers extends grpc.UntypedServiceImplementation {
  CheckSpend: grpc.handleUnaryCall<_gateway_v1_CheckSpendRequest__Output, _gateway_v1_ReserveResponse>;
  
  Draw: grpc.handleUnaryCall<_gateway_v1_DrawRequest__Output, _gateway_v1_DrawResponse>;
  
  GetCatalogue: grpc.handleUnaryCall<_gateway_v1_GetCatalogueRequest__Output, _gateway_v1_Catalogue>;
  
  Lease: grpc.handleUnaryCall<_gateway_v1_LeaseRequest__Output, _gateway_v1_LeaseResponse>;
  
  Release: grpc.handleUnaryCall<_gateway_v1_ReleaseRequest__Output, _gateway_v1_ReleaseResponse>;
  
  Renew: grpc.handleUnaryCall<_gateway_v1_RenewRequest__Output, _gateway_v1_RenewResponse>;
  
  ReportState: grpc.handleUnaryCall<_gateway_v1_DataPlaneReport__Output, _gateway_v1_ReportStateResponse>;
  
  Reserve: grpc.handleUnaryCall<_gateway_v1_ReserveRequest__Output, _gateway_v1_ReserveResponse>;
  
  Settle: grpc.handleUnaryCall<_gateway_v1_SettleRequest__Output, _gateway_v1_SettleResponse>;
  
  Subscribe: grpc.handleServerStreamingCall<_gateway_v1_SubscribeRequest__Output, _gateway_v1_ControlEvent>;
  
  ValidateKey: grpc.handleUnaryCall<_gateway_v1_ValidateKeyRequest__Output, _gateway_v1_ValidateKeyResponse>;
  
}

export interface ControlPlaneDefinition extends grpc.ServiceDefinition {
  CheckSpend: MethodDefinition<_gateway_v1_CheckSpendRequest, _gateway_v1_ReserveResponse, _gateway_v1_CheckSpendRequest__Output, _gateway_v1_ReserveResponse__Output>
  Draw: MethodDefinition<_gateway_v1_DrawRequest, _gateway_v1_DrawResponse, _gateway_v1_DrawRequest__Output, _gateway_v1_DrawResponse__Output>
  GetCatalogue: MethodDefinition<_gateway_v1_GetCatalogueRequest, _gateway_v1_Catalogue, _gateway_v1_GetCatalogueRequest__Output, _gateway_v1_Catalogue__Output>
  Lease: MethodDefinition<_gateway_v1_LeaseRequest, _gateway_v1_LeaseResponse, _gateway_v1_LeaseRequest__Output, _gateway_v1_LeaseResponse__Output>
  Release: MethodDefinition<_gateway_v1_ReleaseRequest, _gateway_v1_ReleaseResponse, _gateway_v1_ReleaseRequest__Output, _gateway_v1_ReleaseResponse__Output>
  Renew: MethodDefinition<_gateway_v1_RenewRequest, _gateway_v1_RenewResponse, _gateway_v1_RenewRequest__Output, _gateway_v1_RenewResponse__Output>
  ReportState: MethodDefinition<_gateway_v1_DataPlaneReport, _gateway_v1_ReportStateResponse, _gateway_v1_DataPlaneReport__Output, _gateway_v1_ReportStateResponse__Output>
  Reserve: MethodDefinition<_gateway_v1_ReserveRequest, _gateway_v1_ReserveResponse, _gateway_v1_ReserveRequest__Output, _gateway_v1_ReserveResponse__Output>
  Settle: MethodDefinition<_gateway_v1_SettleRequest, _gateway_v1_SettleResponse, _gateway_v1_SettleRequest__Output, _gateway_v1_SettleResponse__Output>
  Subscribe: MethodDefinition<_gateway_v1_SubscribeRequest, _gateway_v1_ControlEvent, _gateway_v1_SubscribeRequest__Output, _gateway_v1_ControlEvent__Output>
  ValidateKey: MethodDefinition<_gateway_v1_ValidateKeyRequest, _gateway_v1_ValidateKeyResponse, _gateway_v1_ValidateKeyRequest__Output, _gateway_v1_ValidateKeyResponse__Output>
}
