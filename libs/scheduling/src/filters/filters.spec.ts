import { testEndpoint, testRequest } from '../testing';
import type { EndpointView } from '../types';
import { AvailableFilter, DrainingFilter, PinnedFilter, drainingFilterFactory } from './filters';

const eps: EndpointView[] = [
  testEndpoint('ok'),
  testEndpoint('draining', { draining: true }),
  testEndpoint('cooling', { available: false }),
  testEndpoint('stale', { stale: true }),
];
const ids = (list: EndpointView[]): string[] => list.map((e) => e.id);

describe('filters', () => {
  it.each([
    ['draining-filter drops draining only', new DrainingFilter('draining'), ['ok', 'cooling', 'stale']],
    ['available-filter drops cooldown/breaker-open only; stale stays', new AvailableFilter('available'), ['ok', 'draining', 'stale']],
  ])('%s', (_label, f, expected) => {
    expect(ids(f.filter(testRequest(), eps))).toEqual(expected);
  });

  it.each([
    ['no pin → all', undefined, ['ok', 'draining', 'cooling', 'stale']],
    ['usable pin → only it', 'ok', ['ok']],
    ['stale pin is usable', 'stale', ['stale']],
    ['draining pin falls through', 'draining', ['ok', 'draining', 'cooling', 'stale']],
    ['unavailable pin falls through', 'cooling', ['ok', 'draining', 'cooling', 'stale']],
    ['unknown pin falls through', 'nope', ['ok', 'draining', 'cooling', 'stale']],
  ])('pinned-filter: %s', (_label, pinnedReplica, expected) => {
    expect(ids(new PinnedFilter('pinned').filter(testRequest({ pinnedReplica }), eps))).toEqual(expected);
  });

  it('filter factories take no params', () => {
    expect(() => drainingFilterFactory.create('draining', { x: 1 })).toThrow(/draining-filter 'draining' params: Unrecognized key/);
  });
});
