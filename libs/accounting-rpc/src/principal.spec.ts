import type { Principal, accountingV1 } from '@llmgw/contracts';
import { accountingProto } from './proto';
import { principalFromWire, principalToWire } from './principal';

/** What a ResolveKey answer looks like after a trip through the wire (proto3 defaults filled). */
function overTheWire(p: Principal): accountingV1.ResolvedKey__Output {
  const m = accountingProto().KeyResolver.service.ResolveKey;
  return m.responseDeserialize(m.responseSerialize(principalToWire(p)));
}

const base: Principal = {
  keyId: 'k1',
  keyPrefix: 'llmgw-ab',
  projectId: 'p1',
  teamId: 't1',
  orgId: 'o1',
  band: 'gold',
  limits: { rpm: [{ scope: 'key:k1', limit: 60 }], tpm: [], budgets: [{ scope: 'project:p1', limitMicros: 5_000_000, period: 'day' }] },
};

describe('the wire ↔ principal mapping (router and accounting use this one)', () => {
  it('round-trips a principal with every optional field set', () => {
    const p: Principal = { ...base, routingProfile: 'cheap', expiresAt: 1_800_000_000_000, limits: { ...base.limits, allowedModels: ['a', 'b'] } };
    expect(principalFromWire(overTheWire(p), 'bronze')).toEqual(p);
  });

  it('an unset band (key and project have none) becomes the default band, not ""', () => {
    expect(principalFromWire(overTheWire({ ...base, band: '' }), 'silver').band).toBe('silver');
    expect(principalFromWire(overTheWire(base), 'silver').band).toBe('gold');
  });

  it('a budget period other than "day" reads as "month"', () => {
    const wire = overTheWire(base);
    wire.limits!.budgets = [
      { scope: 'a', limitMicros: 1, period: 'day' },
      { scope: 'b', limitMicros: 1, period: 'month' },
      { scope: 'c', limitMicros: 1, period: '' },
      { scope: 'd', limitMicros: 1, period: 'week' },
    ];
    expect(principalFromWire(wire, 'bronze').limits.budgets.map((b) => b.period)).toEqual(['day', 'month', 'month', 'month']);
  });

  it('no allowlist stays "every model"; an empty restricted list stays "none"', () => {
    expect(principalFromWire(overTheWire(base), 'bronze').limits.allowedModels).toBeUndefined();
    expect(principalFromWire(overTheWire({ ...base, limits: { ...base.limits, allowedModels: [] } }), 'bronze').limits.allowedModels).toEqual([]);
  });
});
