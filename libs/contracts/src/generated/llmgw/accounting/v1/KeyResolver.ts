// Original file: llmgw/accounting/v1/accounting.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { ResolveKeyRequest as _llmgw_accounting_v1_ResolveKeyRequest, ResolveKeyRequest__Output as _llmgw_accounting_v1_ResolveKeyRequest__Output } from '../../../llmgw/accounting/v1/ResolveKeyRequest';
import type { ResolvedKey as _llmgw_accounting_v1_ResolvedKey, ResolvedKey__Output as _llmgw_accounting_v1_ResolvedKey__Output } from '../../../llmgw/accounting/v1/ResolvedKey';

export interface KeyResolverClient extends grpc.Client {
  ResolveKey(argument: _llmgw_accounting_v1_ResolveKeyRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_ResolvedKey__Output>): grpc.ClientUnaryCall;
  ResolveKey(argument: _llmgw_accounting_v1_ResolveKeyRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_accounting_v1_ResolvedKey__Output>): grpc.ClientUnaryCall;
  ResolveKey(argument: _llmgw_accounting_v1_ResolveKeyRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_ResolvedKey__Output>): grpc.ClientUnaryCall;
  ResolveKey(argument: _llmgw_accounting_v1_ResolveKeyRequest, callback: grpc.requestCallback<_llmgw_accounting_v1_ResolvedKey__Output>): grpc.ClientUnaryCall;
  resolveKey(argument: _llmgw_accounting_v1_ResolveKeyRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_ResolvedKey__Output>): grpc.ClientUnaryCall;
  resolveKey(argument: _llmgw_accounting_v1_ResolveKeyRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_accounting_v1_ResolvedKey__Output>): grpc.ClientUnaryCall;
  resolveKey(argument: _llmgw_accounting_v1_ResolveKeyRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_ResolvedKey__Output>): grpc.ClientUnaryCall;
  resolveKey(argument: _llmgw_accounting_v1_ResolveKeyRequest, callback: grpc.requestCallback<_llmgw_accounting_v1_ResolvedKey__Output>): grpc.ClientUnaryCall;
  
}

export interface KeyResolverHandlers extends grpc.UntypedServiceImplementation {
  ResolveKey: grpc.handleUnaryCall<_llmgw_accounting_v1_ResolveKeyRequest__Output, _llmgw_accounting_v1_ResolvedKey>;
  
}

export interface KeyResolverDefinition extends grpc.ServiceDefinition {
  ResolveKey: MethodDefinition<_llmgw_accounting_v1_ResolveKeyRequest, _llmgw_accounting_v1_ResolvedKey, _llmgw_accounting_v1_ResolveKeyRequest__Output, _llmgw_accounting_v1_ResolvedKey__Output>
}
