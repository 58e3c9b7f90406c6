import * as grpc from '@grpc/grpc-js';
import { ACTOR_METADATA_KEY, callerActor, withActor } from './actor';

/** A server call as grpc-js hands it: metadata, and the peer certificate when mTLS. */
function call(actor?: string, subject?: { CN?: string; OU?: string }) {
  const metadata = actor === undefined ? new grpc.Metadata() : withActor(actor);
  return { metadata, getAuthContext: () => (subject ? { sslPeerCertificate: { subject } } : {}) };
}

describe('callerActor: who is behind an admin call, through every relay', () => {
  it.each([
    ['plaintext with --actor', 'alice@ops', call('alice@ops')],
    ['plaintext without one', 'anonymous', call()],
    ['an operator certificate', 'cn=ops-alice', call(undefined, { CN: 'ops-alice', OU: 'operator' })],
    ['an operator certificate and --actor', 'alice (cn=ops-alice)', call('alice', { CN: 'ops-alice', OU: 'operator' })],
    ['the placement-scheduler relaying an operator', 'alice (cn=ops-alice)', call('alice (cn=ops-alice)', { CN: 'sched-1', OU: 'placement-scheduler' })],
    ['a relay certificate naming nobody', 'cn=sched-1', call(undefined, { CN: 'sched-1', OU: 'placement-scheduler' })],
    ['a node certificate cannot speak for someone else', 'root (cn=gpu-a-01)', call('root', { CN: 'gpu-a-01', OU: 'node' })],
  ])('%s → %s', (_n, want, c) => {
    expect(callerActor(c)).toBe(want);
  });

  it('trims and bounds the claimed actor; withActor leaves metadata alone without one', () => {
    expect(callerActor(call(`  ${'x'.repeat(500)}  `))).toHaveLength(200);
    expect(withActor(undefined).get(ACTOR_METADATA_KEY)).toEqual([]);
  });
});
