// Original file: llmgw/accounting/v1/accounting.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { CapacityProfile as _llmgw_accounting_v1_CapacityProfile, CapacityProfile__Output as _llmgw_accounting_v1_CapacityProfile__Output } from '../../../llmgw/accounting/v1/CapacityProfile';
import type { CapacityProfileRef as _llmgw_accounting_v1_CapacityProfileRef, CapacityProfileRef__Output as _llmgw_accounting_v1_CapacityProfileRef__Output } from '../../../llmgw/accounting/v1/CapacityProfileRef';
import type { ListCapacityProfilesRequest as _llmgw_accounting_v1_ListCapacityProfilesRequest, ListCapacityProfilesRequest__Output as _llmgw_accounting_v1_ListCapacityProfilesRequest__Output } from '../../../llmgw/accounting/v1/ListCapacityProfilesRequest';
import type { ListCapacityProfilesResponse as _llmgw_accounting_v1_ListCapacityProfilesResponse, ListCapacityProfilesResponse__Output as _llmgw_accounting_v1_ListCapacityProfilesResponse__Output } from '../../../llmgw/accounting/v1/ListCapacityProfilesResponse';

export interface CapacityAdminClient extends grpc.Client {
  DeleteCapacityProfile(argument: _llmgw_accounting_v1_CapacityProfileRef, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_CapacityProfile__Output>): grpc.ClientUnaryCall;
  DeleteCapacityProfile(argument: _llmgw_accounting_v1_CapacityProfileRef, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_accounting_v1_CapacityProfile__Output>): grpc.ClientUnaryCall;
  DeleteCapacityProfile(argument: _llmgw_accounting_v1_CapacityProfileRef, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_CapacityProfile__Output>): grpc.ClientUnaryCall;
  DeleteCapacityProfile(argument: _llmgw_accounting_v1_CapacityProfileRef, callback: grpc.requestCallback<_llmgw_accounting_v1_CapacityProfile__Output>): grpc.ClientUnaryCall;
  deleteCapacityProfile(argument: _llmgw_accounting_v1_CapacityProfileRef, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_CapacityProfile__Output>): grpc.ClientUnaryCall;
  deleteCapacityProfile(argument: _llmgw_accounting_v1_CapacityProfileRef, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_accounting_v1_CapacityProfile__Output>): grpc.ClientUnaryCall;
  deleteCapacityProfile(argument: _llmgw_accounting_v1_CapacityProfileRef, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_CapacityProfile__Output>): grpc.ClientUnaryCall;
  deleteCapacityProfile(argument: _llmgw_accounting_v1_CapacityProfileRef, callback: grpc.requestCallback<_llmgw_accounting_v1_CapacityProfile__Output>): grpc.ClientUnaryCall;
  
  GetCapacityProfile(argument: _llmgw_accounting_v1_CapacityProfileRef, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_CapacityProfile__Output>): grpc.ClientUnaryCall;
  GetCapacityProfile(argument: _llmgw_accounting_v1_CapacityProfileRef, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_accounting_v1_CapacityProfile__Output>): grpc.ClientUnaryCall;
  GetCapacityProfile(argument: _llmgw_accounting_v1_CapacityProfileRef, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_CapacityProfile__Output>): grpc.ClientUnaryCall;
  GetCapacityProfile(argument: _llmgw_accounting_v1_CapacityProfileRef, callback: grpc.requestCallback<_llmgw_accounting_v1_CapacityProfile__Output>): grpc.ClientUnaryCall;
  getCapacityProfile(argument: _llmgw_accounting_v1_CapacityProfileRef, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_CapacityProfile__Output>): grpc.ClientUnaryCall;
  getCapacityProfile(argument: _llmgw_accounting_v1_CapacityProfileRef, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_accounting_v1_CapacityProfile__Output>): grpc.ClientUnaryCall;
  getCapacityProfile(argument: _llmgw_accounting_v1_CapacityProfileRef, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_CapacityProfile__Output>): grpc.ClientUnaryCall;
  getCapacityProfile(argument: _llmgw_accounting_v1_CapacityProfileRef, callback: grpc.requestCallback<_llmgw_accounting_v1_CapacityProfile__Output>): grpc.ClientUnaryCall;
  
  ListCapacityProfiles(argument: _llmgw_accounting_v1_ListCapacityProfilesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_ListCapacityProfilesResponse__Output>): grpc.ClientUnaryCall;
  ListCapacityProfiles(argument: _llmgw_accounting_v1_ListCapacityProfilesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_accounting_v1_ListCapacityProfilesResponse__Output>): grpc.ClientUnaryCall;
  ListCapacityProfiles(argument: _llmgw_accounting_v1_ListCapacityProfilesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_ListCapacityProfilesResponse__Output>): grpc.ClientUnaryCall;
  ListCapacityProfiles(argument: _llmgw_accounting_v1_ListCapacityProfilesRequest, callback: grpc.requestCallback<_llmgw_accounting_v1_ListCapacityProfilesResponse__Output>): grpc.ClientUnaryCall;
  listCapacityProfiles(argument: _llmgw_accounting_v1_ListCapacityProfilesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_ListCapacityProfilesResponse__Output>): grpc.ClientUnaryCall;
  listCapacityProfiles(argument: _llmgw_accounting_v1_ListCapacityProfilesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_accounting_v1_ListCapacityProfilesResponse__Output>): grpc.ClientUnaryCall;
  listCapacityProfiles(argument: _llmgw_accounting_v1_ListCapacityProfilesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_ListCapacityProfilesResponse__Output>): grpc.ClientUnaryCall;
  listCapacityProfiles(argument: _llmgw_accounting_v1_ListCapacityProfilesRequest, callback: grpc.requestCallback<_llmgw_accounting_v1_ListCapacityProfilesResponse__Output>): grpc.ClientUnaryCall;
  
  SaveCapacityProfile(argument: _llmgw_accounting_v1_CapacityProfile, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_CapacityProfile__Output>): grpc.ClientUnaryCall;
  SaveCapacityProfile(argument: _llmgw_accounting_v1_CapacityProfile, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_accounting_v1_CapacityProfile__Output>): grpc.ClientUnaryCall;
  SaveCapacityProfile(argument: _llmgw_accounting_v1_CapacityProfile, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_CapacityProfile__Output>): grpc.ClientUnaryCall;
  SaveCapacityProfile(argument: _llmgw_accounting_v1_CapacityProfile, callback: grpc.requestCallback<_llmgw_accounting_v1_CapacityProfile__Output>): grpc.ClientUnaryCall;
  saveCapacityProfile(argument: _llmgw_accounting_v1_CapacityProfile, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_CapacityProfile__Output>): grpc.ClientUnaryCall;
  saveCapacityProfile(argument: _llmgw_accounting_v1_CapacityProfile, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_accounting_v1_CapacityProfile__Output>): grpc.ClientUnaryCall;
  saveCapacityProfile(argument: _llmgw_accounting_v1_CapacityProfile, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_CapacityProfile__Output>): grpc.ClientUnaryCall;
  saveCapacityProfile(argument: _llmgw_accounting_v1_CapacityProfile, callback: grpc.requestCallback<_llmgw_accounting_v1_CapacityProfile__Output>): grpc.ClientUnaryCall;
  
}

export interface CapacityAdminHandlers extends grpc.UntypedServiceImplementation {
  DeleteCapacityProfile: grpc.handleUnaryCall<_llmgw_accounting_v1_CapacityProfileRef__Output, _llmgw_accounting_v1_CapacityProfile>;
  
  GetCapacityProfile: grpc.handleUnaryCall<_llmgw_accounting_v1_CapacityProfileRef__Output, _llmgw_accounting_v1_CapacityProfile>;
  
  ListCapacityProfiles: grpc.handleUnaryCall<_llmgw_accounting_v1_ListCapacityProfilesRequest__Output, _llmgw_accounting_v1_ListCapacityProfilesResponse>;
  
  SaveCapacityProfile: grpc.handleUnaryCall<_llmgw_accounting_v1_CapacityProfile__Output, _llmgw_accounting_v1_CapacityProfile>;
  
}

export interface CapacityAdminDefinition extends grpc.ServiceDefinition {
  DeleteCapacityProfile: MethodDefinition<_llmgw_accounting_v1_CapacityProfileRef, _llmgw_accounting_v1_CapacityProfile, _llmgw_accounting_v1_CapacityProfileRef__Output, _llmgw_accounting_v1_CapacityProfile__Output>
  GetCapacityProfile: MethodDefinition<_llmgw_accounting_v1_CapacityProfileRef, _llmgw_accounting_v1_CapacityProfile, _llmgw_accounting_v1_CapacityProfileRef__Output, _llmgw_accounting_v1_CapacityProfile__Output>
  ListCapacityProfiles: MethodDefinition<_llmgw_accounting_v1_ListCapacityProfilesRequest, _llmgw_accounting_v1_ListCapacityProfilesResponse, _llmgw_accounting_v1_ListCapacityProfilesRequest__Output, _llmgw_accounting_v1_ListCapacityProfilesResponse__Output>
  SaveCapacityProfile: MethodDefinition<_llmgw_accounting_v1_CapacityProfile, _llmgw_accounting_v1_CapacityProfile, _llmgw_accounting_v1_CapacityProfile__Output, _llmgw_accounting_v1_CapacityProfile__Output>
}
