// Original file: llmgw/accounting/v1/accounting.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { AppendAuditRequest as _llmgw_accounting_v1_AppendAuditRequest, AppendAuditRequest__Output as _llmgw_accounting_v1_AppendAuditRequest__Output } from '../../../llmgw/accounting/v1/AppendAuditRequest';
import type { AuditEvent as _llmgw_accounting_v1_AuditEvent, AuditEvent__Output as _llmgw_accounting_v1_AuditEvent__Output } from '../../../llmgw/accounting/v1/AuditEvent';

export interface AuditLogClient extends grpc.Client {
  AppendAudit(argument: _llmgw_accounting_v1_AppendAuditRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_AuditEvent__Output>): grpc.ClientUnaryCall;
  AppendAudit(argument: _llmgw_accounting_v1_AppendAuditRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_accounting_v1_AuditEvent__Output>): grpc.ClientUnaryCall;
  AppendAudit(argument: _llmgw_accounting_v1_AppendAuditRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_AuditEvent__Output>): grpc.ClientUnaryCall;
  AppendAudit(argument: _llmgw_accounting_v1_AppendAuditRequest, callback: grpc.requestCallback<_llmgw_accounting_v1_AuditEvent__Output>): grpc.ClientUnaryCall;
  appendAudit(argument: _llmgw_accounting_v1_AppendAuditRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_AuditEvent__Output>): grpc.ClientUnaryCall;
  appendAudit(argument: _llmgw_accounting_v1_AppendAuditRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_accounting_v1_AuditEvent__Output>): grpc.ClientUnaryCall;
  appendAudit(argument: _llmgw_accounting_v1_AppendAuditRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_AuditEvent__Output>): grpc.ClientUnaryCall;
  appendAudit(argument: _llmgw_accounting_v1_AppendAuditRequest, callback: grpc.requestCallback<_llmgw_accounting_v1_AuditEvent__Output>): grpc.ClientUnaryCall;
  
}

export interface AuditLogHandlers extends grpc.UntypedServiceImplementation {
  AppendAudit: grpc.handleUnaryCall<_llmgw_accounting_v1_AppendAuditRequest__Output, _llmgw_accounting_v1_AuditEvent>;
  
}

export interface AuditLogDefinition extends grpc.ServiceDefinition {
  AppendAudit: MethodDefinition<_llmgw_accounting_v1_AppendAuditRequest, _llmgw_accounting_v1_AuditEvent, _llmgw_accounting_v1_AppendAuditRequest__Output, _llmgw_accounting_v1_AuditEvent__Output>
}
