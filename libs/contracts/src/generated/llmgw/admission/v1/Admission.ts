// Original file: llmgw/admission/v1/admission.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { AcquireRequest as _llmgw_admission_v1_AcquireRequest, AcquireRequest__Output as _llmgw_admission_v1_AcquireRequest__Output } from '../../../llmgw/admission/v1/AcquireRequest';
import type { AcquireResponse as _llmgw_admission_v1_AcquireResponse, AcquireResponse__Output as _llmgw_admission_v1_AcquireResponse__Output } from '../../../llmgw/admission/v1/AcquireResponse';
import type { CreditRequest as _llmgw_admission_v1_CreditRequest, CreditRequest__Output as _llmgw_admission_v1_CreditRequest__Output } from '../../../llmgw/admission/v1/CreditRequest';
import type { CreditResponse as _llmgw_admission_v1_CreditResponse, CreditResponse__Output as _llmgw_admission_v1_CreditResponse__Output } from '../../../llmgw/admission/v1/CreditResponse';
import type { KeepAliveRequest as _llmgw_admission_v1_KeepAliveRequest, KeepAliveRequest__Output as _llmgw_admission_v1_KeepAliveRequest__Output } from '../../../llmgw/admission/v1/KeepAliveRequest';
import type { KeepAliveResponse as _llmgw_admission_v1_KeepAliveResponse, KeepAliveResponse__Output as _llmgw_admission_v1_KeepAliveResponse__Output } from '../../../llmgw/admission/v1/KeepAliveResponse';
import type { ReleaseRequest as _llmgw_admission_v1_ReleaseRequest, ReleaseRequest__Output as _llmgw_admission_v1_ReleaseRequest__Output } from '../../../llmgw/admission/v1/ReleaseRequest';
import type { ReleaseResponse as _llmgw_admission_v1_ReleaseResponse, ReleaseResponse__Output as _llmgw_admission_v1_ReleaseResponse__Output } from '../../../llmgw/admission/v1/ReleaseResponse';
import type { StatusRequest as _llmgw_admission_v1_StatusRequest, StatusRequest__Output as _llmgw_admission_v1_StatusRequest__Output } from '../../../llmgw/admission/v1/StatusRequest';
import type { StatusResponse as _llmgw_admission_v1_StatusResponse, StatusResponse__Output as _llmgw_admission_v1_StatusResponse__Output } from '../../../llmgw/admission/v1/StatusResponse';

export interface AdmissionClient extends grpc.Client {
  Acquire(argument: _llmgw_admission_v1_AcquireRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_admission_v1_AcquireResponse__Output>): grpc.ClientUnaryCall;
  Acquire(argument: _llmgw_admission_v1_AcquireRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_admission_v1_AcquireResponse__Output>): grpc.ClientUnaryCall;
  Acquire(argument: _llmgw_admission_v1_AcquireRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_admission_v1_AcquireResponse__Output>): grpc.ClientUnaryCall;
  Acquire(argument: _llmgw_admission_v1_AcquireRequest, callback: grpc.requestCallback<_llmgw_admission_v1_AcquireResponse__Output>): grpc.ClientUnaryCall;
  acquire(argument: _llmgw_admission_v1_AcquireRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_admission_v1_AcquireResponse__Output>): grpc.ClientUnaryCall;
  acquire(argument: _llmgw_admission_v1_AcquireRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_admission_v1_AcquireResponse__Output>): grpc.ClientUnaryCall;
  acquire(argument: _llmgw_admission_v1_AcquireRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_admission_v1_AcquireResponse__Output>): grpc.ClientUnaryCall;
  acquire(argument: _llmgw_admission_v1_AcquireRequest, callback: grpc.requestCallback<_llmgw_admission_v1_AcquireResponse__Output>): grpc.ClientUnaryCall;
  
  Credit(argument: _llmgw_admission_v1_CreditRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_admission_v1_CreditResponse__Output>): grpc.ClientUnaryCall;
  Credit(argument: _llmgw_admission_v1_CreditRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_admission_v1_CreditResponse__Output>): grpc.ClientUnaryCall;
  Credit(argument: _llmgw_admission_v1_CreditRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_admission_v1_CreditResponse__Output>): grpc.ClientUnaryCall;
  Credit(argument: _llmgw_admission_v1_CreditRequest, callback: grpc.requestCallback<_llmgw_admission_v1_CreditResponse__Output>): grpc.ClientUnaryCall;
  credit(argument: _llmgw_admission_v1_CreditRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_admission_v1_CreditResponse__Output>): grpc.ClientUnaryCall;
  credit(argument: _llmgw_admission_v1_CreditRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_admission_v1_CreditResponse__Output>): grpc.ClientUnaryCall;
  credit(argument: _llmgw_admission_v1_CreditRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_admission_v1_CreditResponse__Output>): grpc.ClientUnaryCall;
  credit(argument: _llmgw_admission_v1_CreditRequest, callback: grpc.requestCallback<_llmgw_admission_v1_CreditResponse__Output>): grpc.ClientUnaryCall;
  
  KeepAlive(argument: _llmgw_admission_v1_KeepAliveRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_admission_v1_KeepAliveResponse__Output>): grpc.ClientUnaryCall;
  KeepAlive(argument: _llmgw_admission_v1_KeepAliveRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_admission_v1_KeepAliveResponse__Output>): grpc.ClientUnaryCall;
  KeepAlive(argument: _llmgw_admission_v1_KeepAliveRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_admission_v1_KeepAliveResponse__Output>): grpc.ClientUnaryCall;
  KeepAlive(argument: _llmgw_admission_v1_KeepAliveRequest, callback: grpc.requestCallback<_llmgw_admission_v1_KeepAliveResponse__Output>): grpc.ClientUnaryCall;
  keepAlive(argument: _llmgw_admission_v1_KeepAliveRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_admission_v1_KeepAliveResponse__Output>): grpc.ClientUnaryCall;
  keepAlive(argument: _llmgw_admission_v1_KeepAliveRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_admission_v1_KeepAliveResponse__Output>): grpc.ClientUnaryCall;
  keepAlive(argument: _llmgw_admission_v1_KeepAliveRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_admission_v1_KeepAliveResponse__Output>): grpc.ClientUnaryCall;
  keepAlive(argument: _llmgw_admission_v1_KeepAliveRequest, callback: grpc.requestCallback<_llmgw_admission_v1_KeepAliveResponse__Output>): grpc.ClientUnaryCall;
  
  Release(argument: _llmgw_admission_v1_ReleaseRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_admission_v1_ReleaseResponse__Output>): grpc.ClientUnaryCall;
  Release(argument: _llmgw_admission_v1_ReleaseRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_admission_v1_ReleaseResponse__Output>): grpc.ClientUnaryCall;
  Release(argument: _llmgw_admission_v1_ReleaseRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_admission_v1_ReleaseResponse__Output>): grpc.ClientUnaryCall;
  Release(argument: _llmgw_admission_v1_ReleaseRequest, callback: grpc.requestCallback<_llmgw_admission_v1_ReleaseResponse__Output>): grpc.ClientUnaryCall;
  release(argument: _llmgw_admission_v1_ReleaseRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_admission_v1_ReleaseResponse__Output>): grpc.ClientUnaryCall;
  release(argument: _llmgw_admission_v1_ReleaseRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_admission_v1_ReleaseResponse__Output>): grpc.ClientUnaryCall;
  release(argument: _llmgw_admission_v1_ReleaseRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_admission_v1_ReleaseResponse__Output>): grpc.ClientUnaryCall;
  release(argument: _llmgw_admission_v1_ReleaseRequest, callback: grpc.requestCallback<_llmgw_admission_v1_ReleaseResponse__Output>): grpc.ClientUnaryCall;
  
  Status(argument: _llmgw_admission_v1_StatusRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_admission_v1_StatusResponse__Output>): grpc.ClientUnaryCall;
  Status(argument: _llmgw_admission_v1_StatusRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_admission_v1_StatusResponse__Output>): grpc.ClientUnaryCall;
  Status(argument: _llmgw_admission_v1_StatusRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_admission_v1_StatusResponse__Output>): grpc.ClientUnaryCall;
  Status(argument: _llmgw_admission_v1_StatusRequest, callback: grpc.requestCallback<_llmgw_admission_v1_StatusResponse__Output>): grpc.ClientUnaryCall;
  status(argument: _llmgw_admission_v1_StatusRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_admission_v1_StatusResponse__Output>): grpc.ClientUnaryCall;
  status(argument: _llmgw_admission_v1_StatusRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_admission_v1_StatusResponse__Output>): grpc.ClientUnaryCall;
  status(argument: _llmgw_admission_v1_StatusRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_admission_v1_StatusResponse__Output>): grpc.ClientUnaryCall;
  status(argument: _llmgw_admission_v1_StatusRequest, callback: grpc.requestCallback<_llmgw_admission_v1_StatusResponse__Output>): grpc.ClientUnaryCall;
  
}

export interface AdmissionHandlers extends grpc.UntypedServiceImplementation {
  Acquire: grpc.handleUnaryCall<_llmgw_admission_v1_AcquireRequest__Output, _llmgw_admission_v1_AcquireResponse>;
  
  Credit: grpc.handleUnaryCall<_llmgw_admission_v1_CreditRequest__Output, _llmgw_admission_v1_CreditResponse>;
  
  KeepAlive: grpc.handleUnaryCall<_llmgw_admission_v1_KeepAliveRequest__Output, _llmgw_admission_v1_KeepAliveResponse>;
  
  Release: grpc.handleUnaryCall<_llmgw_admission_v1_ReleaseRequest__Output, _llmgw_admission_v1_ReleaseResponse>;
  
  Status: grpc.handleUnaryCall<_llmgw_admission_v1_StatusRequest__Output, _llmgw_admission_v1_StatusResponse>;
  
}

export interface AdmissionDefinition extends grpc.ServiceDefinition {
  Acquire: MethodDefinition<_llmgw_admission_v1_AcquireRequest, _llmgw_admission_v1_AcquireResponse, _llmgw_admission_v1_AcquireRequest__Output, _llmgw_admission_v1_AcquireResponse__Output>
  Credit: MethodDefinition<_llmgw_admission_v1_CreditRequest, _llmgw_admission_v1_CreditResponse, _llmgw_admission_v1_CreditRequest__Output, _llmgw_admission_v1_CreditResponse__Output>
  KeepAlive: MethodDefinition<_llmgw_admission_v1_KeepAliveRequest, _llmgw_admission_v1_KeepAliveResponse, _llmgw_admission_v1_KeepAliveRequest__Output, _llmgw_admission_v1_KeepAliveResponse__Output>
  Release: MethodDefinition<_llmgw_admission_v1_ReleaseRequest, _llmgw_admission_v1_ReleaseResponse, _llmgw_admission_v1_ReleaseRequest__Output, _llmgw_admission_v1_ReleaseResponse__Output>
  Status: MethodDefinition<_llmgw_admission_v1_StatusRequest, _llmgw_admission_v1_StatusResponse, _llmgw_admission_v1_StatusRequest__Output, _llmgw_admission_v1_StatusResponse__Output>
}
