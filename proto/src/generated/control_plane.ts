import type * as grpc from '@grpc/grpc-js';
import type { MessageTypeDefinition } from '@grpc/proto-loader';

import type { AccessPath as _gateway_v1_AccessPath, AccessPath__Output as _gateway_v1_AccessPath__Output } from './gateway/v1/AccessPath';
import type { Catalogue as _gateway_v1_Catalogue, Catalogue__Output as _gateway_v1_Catalogue__Output } from './gateway/v1/Catalogue';
import type { CatalogueDefaults as _gateway_v1_CatalogueDefaults, CatalogueDefaults__Output as _gateway_v1_CatalogueDefaults__Output } from './gateway/v1/CatalogueDefaults';
import type { CheckSpendRequest as _gateway_v1_CheckSpendRequest, CheckSpendRequest__Output as _gateway_v1_CheckSpendRequest__Output } from './gateway/v1/CheckSpendRequest';
import type { CircuitReport as _gateway_v1_CircuitReport, CircuitReport__Output as _gateway_v1_CircuitReport__Output } from './gateway/v1/CircuitReport';
import type { ControlEvent as _gateway_v1_ControlEvent, ControlEvent__Output as _gateway_v1_ControlEvent__Output } from './gateway/v1/ControlEvent';
import type { ControlPlaneClient as _gateway_v1_ControlPlaneClient, ControlPlaneDefinition as _gateway_v1_ControlPlaneDefinition } from './gateway/v1/ControlPlane';
import type { CostPart as _gateway_v1_CostPart, CostPart__Output as _gateway_v1_CostPart__Output } from './gateway/v1/CostPart';
import type { DataPlaneReport as _gateway_v1_DataPlaneReport, DataPlaneReport__Output as _gateway_v1_DataPlaneReport__Output } from './gateway/v1/DataPlaneReport';
import type { Draw as _gateway_v1_Draw, Draw__Output as _gateway_v1_Draw__Output } from './gateway/v1/Draw';
import type { DrawRequest as _gateway_v1_DrawRequest, DrawRequest__Output as _gateway_v1_DrawRequest__Output } from './gateway/v1/DrawRequest';
import type { DrawResponse as _gateway_v1_DrawResponse, DrawResponse__Output as _gateway_v1_DrawResponse__Output } from './gateway/v1/DrawResponse';
import type { DrawResult as _gateway_v1_DrawResult, DrawResult__Output as _gateway_v1_DrawResult__Output } from './gateway/v1/DrawResult';
import type { GetCatalogueRequest as _gateway_v1_GetCatalogueRequest, GetCatalogueRequest__Output as _gateway_v1_GetCatalogueRequest__Output } from './gateway/v1/GetCatalogueRequest';
import type { Heartbeat as _gateway_v1_Heartbeat, Heartbeat__Output as _gateway_v1_Heartbeat__Output } from './gateway/v1/Heartbeat';
import type { HoldRef as _gateway_v1_HoldRef, HoldRef__Output as _gateway_v1_HoldRef__Output } from './gateway/v1/HoldRef';
import type { KeyChanged as _gateway_v1_KeyChanged, KeyChanged__Output as _gateway_v1_KeyChanged__Output } from './gateway/v1/KeyChanged';
import type { KeyLimits as _gateway_v1_KeyLimits, KeyLimits__Output as _gateway_v1_KeyLimits__Output } from './gateway/v1/KeyLimits';
import type { KeyPoolReport as _gateway_v1_KeyPoolReport, KeyPoolReport__Output as _gateway_v1_KeyPoolReport__Output } from './gateway/v1/KeyPoolReport';
import type { KeyReport as _gateway_v1_KeyReport, KeyReport__Output as _gateway_v1_KeyReport__Output } from './gateway/v1/KeyReport';
import type { KeyRevoked as _gateway_v1_KeyRevoked, KeyRevoked__Output as _gateway_v1_KeyRevoked__Output } from './gateway/v1/KeyRevoked';
import type { LeaseRequest as _gateway_v1_LeaseRequest, LeaseRequest__Output as _gateway_v1_LeaseRequest__Output } from './gateway/v1/LeaseRequest';
import type { LeaseResponse as _gateway_v1_LeaseResponse, LeaseResponse__Output as _gateway_v1_LeaseResponse__Output } from './gateway/v1/LeaseResponse';
import type { LongContextPrice as _gateway_v1_LongContextPrice, LongContextPrice__Output as _gateway_v1_LongContextPrice__Output } from './gateway/v1/LongContextPrice';
import type { Model as _gateway_v1_Model, Model__Output as _gateway_v1_Model__Output } from './gateway/v1/Model';
import type { Price as _gateway_v1_Price, Price__Output as _gateway_v1_Price__Output } from './gateway/v1/Price';
import type { ProjectChanged as _gateway_v1_ProjectChanged, ProjectChanged__Output as _gateway_v1_ProjectChanged__Output } from './gateway/v1/ProjectChanged';
import type { ProjectLimits as _gateway_v1_ProjectLimits, ProjectLimits__Output as _gateway_v1_ProjectLimits__Output } from './gateway/v1/ProjectLimits';
import type { ReleaseRequest as _gateway_v1_ReleaseRequest, ReleaseRequest__Output as _gateway_v1_ReleaseRequest__Output } from './gateway/v1/ReleaseRequest';
import type { ReleaseResponse as _gateway_v1_ReleaseResponse, ReleaseResponse__Output as _gateway_v1_ReleaseResponse__Output } from './gateway/v1/ReleaseResponse';
import type { RenewRequest as _gateway_v1_RenewRequest, RenewRequest__Output as _gateway_v1_RenewRequest__Output } from './gateway/v1/RenewRequest';
import type { RenewResponse as _gateway_v1_RenewResponse, RenewResponse__Output as _gateway_v1_RenewResponse__Output } from './gateway/v1/RenewResponse';
import type { ReportStateResponse as _gateway_v1_ReportStateResponse, ReportStateResponse__Output as _gateway_v1_ReportStateResponse__Output } from './gateway/v1/ReportStateResponse';
import type { ReserveRequest as _gateway_v1_ReserveRequest, ReserveRequest__Output as _gateway_v1_ReserveRequest__Output } from './gateway/v1/ReserveRequest';
import type { ReserveResponse as _gateway_v1_ReserveResponse, ReserveResponse__Output as _gateway_v1_ReserveResponse__Output } from './gateway/v1/ReserveResponse';
import type { SettleRequest as _gateway_v1_SettleRequest, SettleRequest__Output as _gateway_v1_SettleRequest__Output } from './gateway/v1/SettleRequest';
import type { SettleResponse as _gateway_v1_SettleResponse, SettleResponse__Output as _gateway_v1_SettleResponse__Output } from './gateway/v1/SettleResponse';
import type { SubscribeRequest as _gateway_v1_SubscribeRequest, SubscribeRequest__Output as _gateway_v1_SubscribeRequest__Output } from './gateway/v1/SubscribeRequest';
import type { TokenRates as _gateway_v1_TokenRates, TokenRates__Output as _gateway_v1_TokenRates__Output } from './gateway/v1/TokenRates';
import type { ValidateKeyRequest as _gateway_v1_ValidateKeyRequest, ValidateKeyRequest__Output as _gateway_v1_ValidateKeyRequest__Output } from './gateway/v1/ValidateKeyRequest';
import type { ValidateKeyResponse as _gateway_v1_ValidateKeyResponse, ValidateKeyResponse__Output as _gateway_v1_ValidateKeyResponse__Output } from './gateway/v1/ValidateKeyResponse';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  gateway: {
    v1: {
      AccessPath: MessageTypeDefinition<_gateway_v1_AccessPath, _gateway_v1_AccessPath__Output>
      Catalogue: MessageTypeDefinition<_gateway_v1_Catalogue, _gateway_v1_Catalogue__Output>
      CatalogueDefaults: MessageTypeDefinition<_gateway_v1_CatalogueDefaults, _gateway_v1_CatalogueDefaults__Output>
      CheckSpendRequest: MessageTypeDefinition<_gateway_v1_CheckSpendRequest, _gateway_v1_CheckSpendRequest__Output>
      CircuitReport: MessageTypeDefinition<_gateway_v1_CircuitReport, _gateway_v1_CircuitReport__Output>
      ControlEvent: MessageTypeDefinition<_gateway_v1_ControlEvent, _gateway_v1_ControlEvent__Output>
      ControlPlane: SubtypeConstructor<typeof grpc.Client, _gateway_v1_ControlPlaneClient> & { service: _gateway_v1_ControlPlaneDefinition }
      CostPart: MessageTypeDefinition<_gateway_v1_CostPart, _gateway_v1_CostPart__Output>
      DataPlaneReport: MessageTypeDefinition<_gateway_v1_DataPlaneReport, _gateway_v1_DataPlaneReport__Output>
      Draw: MessageTypeDefinition<_gateway_v1_Draw, _gateway_v1_Draw__Output>
      DrawRequest: MessageTypeDefinition<_gateway_v1_DrawRequest, _gateway_v1_DrawRequest__Output>
      DrawResponse: MessageTypeDefinition<_gateway_v1_DrawResponse, _gateway_v1_DrawResponse__Output>
      DrawResult: MessageTypeDefinition<_gateway_v1_DrawResult, _gateway_v1_DrawResult__Output>
      GetCatalogueRequest: MessageTypeDefinition<_gateway_v1_GetCatalogueRequest, _gateway_v1_GetCatalogueRequest__Output>
      Heartbeat: MessageTypeDefinition<_gateway_v1_Heartbeat, _gateway_v1_Heartbeat__Output>
      HoldRef: MessageTypeDefinition<_gateway_v1_HoldRef, _gateway_v1_HoldRef__Output>
      KeyChanged: MessageTypeDefinition<_gateway_v1_KeyChanged, _gateway_v1_KeyChanged__Output>
      KeyLimits: MessageTypeDefinition<_gateway_v1_KeyLimits, _gateway_v1_KeyLimits__Output>
      KeyPoolReport: MessageTypeDefinition<_gateway_v1_KeyPoolReport, _gateway_v1_KeyPoolReport__Output>
      KeyReport: MessageTypeDefinition<_gateway_v1_KeyReport, _gateway_v1_KeyReport__Output>
      KeyRevoked: MessageTypeDefinition<_gateway_v1_KeyRevoked, _gateway_v1_KeyRevoked__Output>
      LeaseRequest: MessageTypeDefinition<_gateway_v1_LeaseRequest, _gateway_v1_LeaseRequest__Output>
      LeaseResponse: MessageTypeDefinition<_gateway_v1_LeaseResponse, _gateway_v1_LeaseResponse__Output>
      LongContextPrice: MessageTypeDefinition<_gateway_v1_LongContextPrice, _gateway_v1_LongContextPrice__Output>
      Model: MessageTypeDefinition<_gateway_v1_Model, _gateway_v1_Model__Output>
      Price: MessageTypeDefinition<_gateway_v1_Price, _gateway_v1_Price__Output>
      ProjectChanged: MessageTypeDefinition<_gateway_v1_ProjectChanged, _gateway_v1_ProjectChanged__Output>
      ProjectLimits: MessageTypeDefinition<_gateway_v1_ProjectLimits, _gateway_v1_ProjectLimits__Output>
      ReleaseRequest: MessageTypeDefinition<_gateway_v1_ReleaseRequest, _gateway_v1_ReleaseRequest__Output>
      ReleaseResponse: MessageTypeDefinition<_gateway_v1_ReleaseResponse, _gateway_v1_ReleaseResponse__Output>
      RenewRequest: MessageTypeDefinition<_gateway_v1_RenewRequest, _gateway_v1_RenewRequest__Output>
      RenewResponse: MessageTypeDefinition<_gateway_v1_RenewResponse, _gateway_v1_RenewResponse__Output>
      ReportStateResponse: MessageTypeDefinition<_gateway_v1_ReportStateResponse, _gateway_v1_ReportStateResponse__Output>
      ReserveRequest: MessageTypeDefinition<_gateway_v1_ReserveRequest, _gateway_v1_ReserveRequest__Output>
      ReserveResponse: MessageTypeDefinition<_gateway_v1_ReserveResponse, _gateway_v1_ReserveResponse__Output>
      SettleRequest: MessageTypeDefinition<_gateway_v1_SettleRequest, _gateway_v1_SettleRequest__Output>
      SettleResponse: MessageTypeDefinition<_gateway_v1_SettleResponse, _gateway_v1_SettleResponse__Output>
      SubscribeRequest: MessageTypeDefinition<_gateway_v1_SubscribeRequest, _gateway_v1_SubscribeRequest__Output>
      TokenRates: MessageTypeDefinition<_gateway_v1_TokenRates, _gateway_v1_TokenRates__Output>
      ValidateKeyRequest: MessageTypeDefinition<_gateway_v1_ValidateKeyRequest, _gateway_v1_ValidateKeyRequest__Output>
      ValidateKeyResponse: MessageTypeDefinition<_gateway_v1_ValidateKeyResponse, _gateway_v1_ValidateKeyResponse__Output>
    }
  }
}

