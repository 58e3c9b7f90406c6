/**
 * The wire messages of proto/llmgw/admission/v1 as grpc-js hands them over
 * with PROTO_LOADER_OPTIONS (camelCase, longs as numbers, enums as strings,
 * defaults filled, oneof name in `result`). They match the generated
 * `__Output` types in libs/contracts/src/generated/llmgw/admission/v1.
 */
import type { RejectReason } from '@llmgw/admission-core';

export interface AcquireRequestWire {
  requestId: string;
  band: string;
  tenant: string;
  model: string;
  candidatePools: string[];
  estimatedTokens: number;
  deadlineUnixMs: number;
  routerId: string;
}

export type RejectReasonWire = 'REJECT_REASON_UNSPECIFIED' | 'REJECT_REASON_FULL' | 'REJECT_REASON_TTL' | 'REJECT_REASON_CLIENT_GONE' | 'REJECT_REASON_DISPLACED';

export interface AcquireResponseWire {
  granted?: { leaseId: string; pool: string } | null;
  rejected?: { reason: RejectReasonWire; retryAfterSeconds: number; message: string } | null;
  queuedMs: number;
  result?: 'granted' | 'rejected';
}

export interface ReleaseRequestWire {
  leaseId: string;
  routerId: string;
  status: number;
  promptTokens: number;
  completionTokens: number;
}

export interface HeldLeaseWire {
  leaseId: string;
  pool: string;
}

export interface KeepAliveRequestWire {
  routerId: string;
  leases: HeldLeaseWire[];
}

export interface KeepAliveResponseWire {
  known: number;
  routerTtlMs: number;
}

export interface StatusResponseWire {
  serving: boolean;
  fencingToken: number;
  instanceId: string;
  queued: number;
  outstanding: number;
}

const TO_WIRE: Record<RejectReason, RejectReasonWire> = {
  full: 'REJECT_REASON_FULL',
  ttl: 'REJECT_REASON_TTL',
  client_gone: 'REJECT_REASON_CLIENT_GONE',
  displaced: 'REJECT_REASON_DISPLACED',
};

export function reasonToWire(r: RejectReason): RejectReasonWire {
  return TO_WIRE[r];
}

export function reasonFromWire(r: string | undefined): RejectReason {
  switch (r) {
    case 'REJECT_REASON_TTL':
      return 'ttl';
    case 'REJECT_REASON_CLIENT_GONE':
      return 'client_gone';
    case 'REJECT_REASON_DISPLACED':
      return 'displaced';
    default:
      return 'full';
  }
}
