// Original file: gateway/v1/control_plane.proto

import type { Long } from '@grpc/proto-loader';

export interface Price {
  'inputNanoPerM'?: (number | string | Long);
  'outputNanoPerM'?: (number | string | Long);
  'imageNano'?: (number | string | Long);
  'requestNano'?: (number | string | Long);
  'verified'?: (boolean);
  'source'?: (string);
  '_inputNanoPerM'?: "inputNanoPerM";
  '_outputNanoPerM'?: "outputNanoPerM";
  '_imageNano'?: "imageNano";
  '_requestNano'?: "requestNano";
}

export interface Price__Output {
  'inputNanoPerM'?: (string);
  'outputNanoPerM'?: (string);
  'imageNano'?: (string);
  'requestNano'?: (string);
  'verified': (boolean);
  'source': (string);
  '_inputNanoPerM'?: "inputNanoPerM";
  '_outputNanoPerM'?: "outputNanoPerM";
  '_imageNano'?: "imageNano";
  '_requestNano'?: "requestNano";
}
