import type { EndpointInfo } from './types';
import { decodeEndpoint, decodeEndpointRecord, encodeEndpoint, endpointsChangedSchema } from './redis-contract';
import { normaliseEndpoint } from './static-source';

const full: EndpointInfo = normaliseEndpoint({
  id: 'r1',
  url: 'http://10.0.0.5:8000',
  model: 'm',
  engine: 'sglang',
  pool: 'ib-h100',
  priority: 2,
  weight: 50,
  draining: true,
  scheduling_policy: 'priority',
  target_waiting: 2.5,
  kv_events: { endpoint: 'tcp://10.0.0.5:5557', replay_endpoint: 'tcp://10.0.0.5:5558' },
});

describe('endpoint record v1', () => {
  it('what the writer stores reads back as the same endpoint, scheduling policy and KV event sockets included', () => {
    const json = encodeEndpoint(full);
    expect(JSON.parse(json)).toMatchObject({
      v: 1,
      scheduling_policy: 'priority',
      target_waiting: 2.5,
      kv_events: { endpoint: 'tcp://10.0.0.5:5557', replay_endpoint: 'tcp://10.0.0.5:5558' },
    });
    expect(decodeEndpoint('r1', json)).toEqual(full);
  });

  it('a minimal record (no v, only url and model) takes the defaults; the hash field is the id', () => {
    expect(decodeEndpoint('r2', JSON.stringify({ url: 'http://h:1/', model: 'm' }))).toEqual(normaliseEndpoint({ id: 'r2', url: 'http://h:1', model: 'm' }));
  });

  it.each([
    ['not JSON', '{'],
    ['no url', JSON.stringify({ model: 'm' })],
    ['an unknown engine', JSON.stringify({ url: 'http://h', model: 'm', engine: 'tgi' })],
    ['a zero weight', JSON.stringify({ url: 'http://h', model: 'm', weight: 0 })],
    ['a wrong type', JSON.stringify({ url: 'http://h', model: 'm', draining: 'yes' })],
    ['another version', JSON.stringify({ v: 2, url: 'http://h', model: 'm' })],
  ])('rejects %s with a reason', (_what, json) => {
    const r = decodeEndpointRecord('x', json);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.error).toMatch(/\S/);
  });

  it('the change message is the version number', () => {
    expect(endpointsChangedSchema.safeParse('42').success).toBe(true);
    expect(endpointsChangedSchema.safeParse('{"v":1}').success).toBe(false);
  });
});
