import type * as grpc from '@grpc/grpc-js';
import type { EnumTypeDefinition, MessageTypeDefinition } from '@grpc/proto-loader';

import type { AcquireRequest as _llmgw_admission_v1_AcquireRequest, AcquireRequest__Output as _llmgw_admission_v1_AcquireRequest__Output } from './llmgw/admission/v1/AcquireRequest';
import type { AcquireResponse as _llmgw_admission_v1_AcquireResponse, AcquireResponse__Output as _llmgw_admission_v1_AcquireResponse__Output } from './llmgw/admission/v1/AcquireResponse';
import type { AdmissionClient as _llmgw_admission_v1_AdmissionClient, AdmissionDefinition as _llmgw_admission_v1_AdmissionDefinition } from './llmgw/admission/v1/Admission';
import type { CreditGrant as _llmgw_admission_v1_CreditGrant, CreditGrant__Output as _llmgw_admission_v1_CreditGrant__Output } from './llmgw/admission/v1/CreditGrant';
import type { CreditRequest as _llmgw_admission_v1_CreditRequest, CreditRequest__Output as _llmgw_admission_v1_CreditRequest__Output } from './llmgw/admission/v1/CreditRequest';
import type { CreditResponse as _llmgw_admission_v1_CreditResponse, CreditResponse__Output as _llmgw_admission_v1_CreditResponse__Output } from './llmgw/admission/v1/CreditResponse';
import type { CreditUse as _llmgw_admission_v1_CreditUse, CreditUse__Output as _llmgw_admission_v1_CreditUse__Output } from './llmgw/admission/v1/CreditUse';
import type { Granted as _llmgw_admission_v1_Granted, Granted__Output as _llmgw_admission_v1_Granted__Output } from './llmgw/admission/v1/Granted';
import type { HeldLease as _llmgw_admission_v1_HeldLease, HeldLease__Output as _llmgw_admission_v1_HeldLease__Output } from './llmgw/admission/v1/HeldLease';
import type { KeepAliveRequest as _llmgw_admission_v1_KeepAliveRequest, KeepAliveRequest__Output as _llmgw_admission_v1_KeepAliveRequest__Output } from './llmgw/admission/v1/KeepAliveRequest';
import type { KeepAliveResponse as _llmgw_admission_v1_KeepAliveResponse, KeepAliveResponse__Output as _llmgw_admission_v1_KeepAliveResponse__Output } from './llmgw/admission/v1/KeepAliveResponse';
import type { ModelQueue as _llmgw_admission_v1_ModelQueue, ModelQueue__Output as _llmgw_admission_v1_ModelQueue__Output } from './llmgw/admission/v1/ModelQueue';
import type { Rejected as _llmgw_admission_v1_Rejected, Rejected__Output as _llmgw_admission_v1_Rejected__Output } from './llmgw/admission/v1/Rejected';
import type { ReleaseRequest as _llmgw_admission_v1_ReleaseRequest, ReleaseRequest__Output as _llmgw_admission_v1_ReleaseRequest__Output } from './llmgw/admission/v1/ReleaseRequest';
import type { ReleaseResponse as _llmgw_admission_v1_ReleaseResponse, ReleaseResponse__Output as _llmgw_admission_v1_ReleaseResponse__Output } from './llmgw/admission/v1/ReleaseResponse';
import type { StatusRequest as _llmgw_admission_v1_StatusRequest, StatusRequest__Output as _llmgw_admission_v1_StatusRequest__Output } from './llmgw/admission/v1/StatusRequest';
import type { StatusResponse as _llmgw_admission_v1_StatusResponse, StatusResponse__Output as _llmgw_admission_v1_StatusResponse__Output } from './llmgw/admission/v1/StatusResponse';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  llmgw: {
    admission: {
      v1: {
        AcquireRequest: MessageTypeDefinition<_llmgw_admission_v1_AcquireRequest, _llmgw_admission_v1_AcquireRequest__Output>
        AcquireResponse: MessageTypeDefinition<_llmgw_admission_v1_AcquireResponse, _llmgw_admission_v1_AcquireResponse__Output>
        Admission: SubtypeConstructor<typeof grpc.Client, _llmgw_admission_v1_AdmissionClient> & { service: _llmgw_admission_v1_AdmissionDefinition }
        CreditGrant: MessageTypeDefinition<_llmgw_admission_v1_CreditGrant, _llmgw_admission_v1_CreditGrant__Output>
        CreditRequest: MessageTypeDefinition<_llmgw_admission_v1_CreditRequest, _llmgw_admission_v1_CreditRequest__Output>
        CreditResponse: MessageTypeDefinition<_llmgw_admission_v1_CreditResponse, _llmgw_admission_v1_CreditResponse__Output>
        CreditUse: MessageTypeDefinition<_llmgw_admission_v1_CreditUse, _llmgw_admission_v1_CreditUse__Output>
        Granted: MessageTypeDefinition<_llmgw_admission_v1_Granted, _llmgw_admission_v1_Granted__Output>
        HeldLease: MessageTypeDefinition<_llmgw_admission_v1_HeldLease, _llmgw_admission_v1_HeldLease__Output>
        KeepAliveRequest: MessageTypeDefinition<_llmgw_admission_v1_KeepAliveRequest, _llmgw_admission_v1_KeepAliveRequest__Output>
        KeepAliveResponse: MessageTypeDefinition<_llmgw_admission_v1_KeepAliveResponse, _llmgw_admission_v1_KeepAliveResponse__Output>
        ModelQueue: MessageTypeDefinition<_llmgw_admission_v1_ModelQueue, _llmgw_admission_v1_ModelQueue__Output>
        RejectReason: EnumTypeDefinition
        Rejected: MessageTypeDefinition<_llmgw_admission_v1_Rejected, _llmgw_admission_v1_Rejected__Output>
        ReleaseRequest: MessageTypeDefinition<_llmgw_admission_v1_ReleaseRequest, _llmgw_admission_v1_ReleaseRequest__Output>
        ReleaseResponse: MessageTypeDefinition<_llmgw_admission_v1_ReleaseResponse, _llmgw_admission_v1_ReleaseResponse__Output>
        StatusRequest: MessageTypeDefinition<_llmgw_admission_v1_StatusRequest, _llmgw_admission_v1_StatusRequest__Output>
        StatusResponse: MessageTypeDefinition<_llmgw_admission_v1_StatusResponse, _llmgw_admission_v1_StatusResponse__Output>
      }
    }
  }
}

