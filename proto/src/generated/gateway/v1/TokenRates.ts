// Original file: gateway/v1/control_plane.proto

import type { Long } from '@grpc/proto-loader';

export interface TokenRates {
  'inputNanoPerM'?: (number | string | Long);
  'outputNanoPerM'?: (number | string | Long);
  'cachedInputNanoPerM'?: (number | string | Long);
  'cacheWrite_5mNanoPerM'?: (number | string | Long);
  'cacheWrite_1hNanoPerM'?: (number | string | Long);
  'reasoningNanoPerM'?: (number | string | Long);
  'audioInputNanoPerM'?: (number | string | Long);
  'audioOutputNanoPerM'?: (number | string | Long);
  'imageInputNanoPerM'?: (number | string | Long);
  'imageOutputNanoPerM'?: (number | string | Long);
  '_inputNanoPerM'?: "inputNanoPerM";
  '_outputNanoPerM'?: "outputNanoPerM";
  '_cachedInputNanoPerM'?: "cachedInputNanoPerM";
  '_cacheWrite_5mNanoPerM'?: "cacheWrite_5mNanoPerM";
  '_cacheWrite_1hNanoPerM'?: "cacheWrite_1hNanoPerM";
  '_reasoningNanoPerM'?: "reasoningNanoPerM";
  '_audioInputNanoPerM'?: "audioInputNanoPerM";
  '_audioOutputNanoPerM'?: "audioOutputNanoPerM";
  '_imageInputNanoPerM'?: "imageInputNanoPerM";
  '_imageOutputNanoPerM'?: "imageOutputNanoPerM";
}

export interface TokenRates__Output {
  'inputNanoPerM'?: (string);
  'outputNanoPerM'?: (string);
  'cachedInputNanoPerM'?: (string);
  'cacheWrite_5mNanoPerM'?: (string);
  'cacheWrite_1hNanoPerM'?: (string);
  'reasoningNanoPerM'?: (string);
  'audioInputNanoPerM'?: (string);
  'audioOutputNanoPerM'?: (string);
  'imageInputNanoPerM'?: (string);
  'imageOutputNanoPerM'?: (string);
  '_inputNanoPerM'?: "inputNanoPerM";
  '_outputNanoPerM'?: "outputNanoPerM";
  '_cachedInputNanoPerM'?: "cachedInputNanoPerM";
  '_cacheWrite_5mNanoPerM'?: "cacheWrite_5mNanoPerM";
  '_cacheWrite_1hNanoPerM'?: "cacheWrite_1hNanoPerM";
  '_reasoningNanoPerM'?: "reasoningNanoPerM";
  '_audioInputNanoPerM'?: "audioInputNanoPerM";
  '_audioOutputNanoPerM'?: "audioOutputNanoPerM";
  '_imageInputNanoPerM'?: "imageInputNanoPerM";
  '_imageOutputNanoPerM'?: "imageOutputNanoPerM";
}
