import type { RejectReason } from '@llmgw/admission-core';
import type { admissionV1 } from '@llmgw/contracts';

const TO_WIRE: Record<RejectReason, admissionV1.RejectReason__Output> = {
  full: 'REJECT_REASON_FULL',
  ttl: 'REJECT_REASON_TTL',
  client_gone: 'REJECT_REASON_CLIENT_GONE',
  displaced: 'REJECT_REASON_DISPLACED',
};

/** An admission-core reject reason as the wire enum. */
export function reasonToWire(r: RejectReason): admissionV1.RejectReason__Output {
  return TO_WIRE[r];
}

/** The wire enum back; UNSPECIFIED (or anything unknown) reads as `full`. */
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
