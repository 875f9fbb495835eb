// Original file: gateway/v1/control_plane.proto

import type { LongContextPrice as _gateway_v1_LongContextPrice, LongContextPrice__Output as _gateway_v1_LongContextPrice__Output } from '../../gateway/v1/LongContextPrice';
import type { TokenRates as _gateway_v1_TokenRates, TokenRates__Output as _gateway_v1_TokenRates__Output } from '../../gateway/v1/TokenRates';
import type { Long } from '@grpc/proto-loader';

export interface Price {
  'inputNanoPerM'?: (number | string | Long);
  'outputNanoPerM'?: (number | string | Long);
  'imageNano'?: (number | string | Long);
  'requestNano'?: (number | string | Long);
  'verified'?: (boolean);
  'source'?: (string);
  'cachedInputNanoPerM'?: (number | string | Long);
  'cacheWrite_5mNanoPerM'?: (number | string | Long);
  'cacheWrite_1hNanoPerM'?: (number | string | Long);
  'reasoningNanoPerM'?: (number | string | Long);
  'audioInputNanoPerM'?: (number | string | Long);
  'audioOutputNanoPerM'?: (number | string | Long);
  'imageInputNanoPerM'?: (number | string | Long);
  'imageOutputNanoPerM'?: (number | string | Long);
  'inputImageNano'?: (number | string | Long);
  'webSearchNano'?: (number | string | Long);
  'longContext'?: (_gateway_v1_LongContextPrice | null);
  'serviceTiers'?: ({[key: string]: _gateway_v1_TokenRates});
  'verifiedComponents'?: (string)[];
  '_inputNanoPerM'?: "inputNanoPerM";
  '_outputNanoPerM'?: "outputNanoPerM";
  '_imageNano'?: "imageNano";
  '_requestNano'?: "requestNano";
  '_cachedInputNanoPerM'?: "cachedInputNanoPerM";
  '_cacheWrite_5mNanoPerM'?: "cacheWrite_5mNanoPerM";
  '_cacheWrite_1hNanoPerM'?: "cacheWrite_1hNanoPerM";
  '_reasoningNanoPerM'?: "reasoningNanoPerM";
  '_audioInputNanoPerM'?: "audioInputNanoPerM";
  '_audioOutputNanoPerM'?: "audioOutputNanoPerM";
  '_imageInputNanoPerM'?: "imageInputNanoPerM";
  '_imageOutputNanoPerM'?: "imageOutputNanoPerM";
  '_inputImageNano'?: "inputImageNano";
  '_webSearchNano'?: "webSearchNano";
}

export interface Price__Output {
  'inputNanoPerM'?: (string);
  'outputNanoPerM'?: (string);
  'imageNano'?: (string);
  'requestNano'?: (string);
  'verified': (boolean);
  'source': (string);
  'cachedInputNanoPerM'?: (string);
  'cacheWrite_5mNanoPerM'?: (string);
  'cacheWrite_1hNanoPerM'?: (string);
  'reasoningNanoPerM'?: (string);
  'audioInputNanoPerM'?: (string);
  'audioOutputNanoPerM'?: (string);
  'imageInputNanoPerM'?: (string);
  'imageOutputNanoPerM'?: (string);
  'inputImageNano'?: (string);
  'webSearchNano'?: (string);
  'longContext': (_gateway_v1_LongContextPrice__Output | null);
  'serviceTiers': ({[key: string]: _gateway_v1_TokenRates__Output});
  'verifiedComponents': (string)[];
  '_inputNanoPerM'?: "inputNanoPerM";
  '_outputNanoPerM'?: "outputNanoPerM";
  '_imageNano'?: "imageNano";
  '_requestNano'?: "requestNano";
  '_cachedInputNanoPerM'?: "cachedInputNanoPerM";
  '_cacheWrite_5mNanoPerM'?: "cacheWrite_5mNanoPerM";
  '_cacheWrite_1hNanoPerM'?: "cacheWrite_1hNanoPerM";
  '_reasoningNanoPerM'?: "reasoningNanoPerM";
  '_audioInputNanoPerM'?: "audioInputNanoPerM";
  '_audioOutputNanoPerM'?: "audioOutputNanoPerM";
  '_imageInputNanoPerM'?: "imageInputNanoPerM";
  '_imageOutputNanoPerM'?: "imageOutputNanoPerM";
  '_inputImageNano'?: "inputImageNano";
  '_webSearchNano'?: "webSearchNano";
}
