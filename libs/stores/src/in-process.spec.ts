import { randomUUID } from 'node:crypto';
import { normaliseEndpoint } from '@llmgw/endpoints';
import { dropInProcessState, inProcessState } from './in-process';

describe('inProcessState', () => {
  it('is one shared state per name: a write through one handle is read through another', async () => {
    const name = `test:${randomUUID()}:`;
    const src = inProcessState(name).endpoints.source();
    await inProcessState(name).endpoints.put(normaliseEndpoint({ name: 'a', url: 'http://h:1', model: 'm' }));
    expect(src.all().map((e) => e.id)).toEqual(['a']);
    expect(await inProcessState(name).lock.acquire('placement-scheduler', 'x', 5000)).toBe(1);
    expect(await inProcessState(name).lock.acquire('placement-scheduler', 'y', 5000)).toBeUndefined();
    await src.close();
    dropInProcessState(name);
    expect(inProcessState(name).endpoints.raw().size).toBe(0);
  });

  it('keeps names apart', async () => {
    const a = `test:${randomUUID()}:`;
    const b = `test:${randomUUID()}:`;
    await inProcessState(a).targets.set('demo', { min: 1, max: 1 });
    expect(await inProcessState(b).targets.load()).toEqual(new Map());
    dropInProcessState(a);
    dropInProcessState(b);
  });
});
