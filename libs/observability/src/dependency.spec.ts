import { Registry } from 'prom-client';
import { Dependencies } from './dependency';

function setup() {
  const lines: Array<{ obj: any; msg: string }> = [];
  let t = 1_000;
  const registry = new Registry();
  const deps = new Dependencies({ log: { warn: ((obj: any, msg: string) => lines.push({ obj, msg })) as any }, registry, now: () => t });
  return { lines, deps, registry, advance: (ms: number) => (t += ms) };
}

describe('DependencyMonitor', () => {
  it('writes one line when lost and one when back, however many calls failed in between, with the outage length', async () => {
    const { lines, deps, registry, advance } = setup();
    const d = deps.get('accounting', { address: '10.0.0.1:7071' });
    d.ok();
    for (let i = 0; i < 50; i++) d.lost(new Error('UNAVAILABLE: connect ECONNREFUSED'));
    expect(await registry.metrics()).toContain('llmgw_dependency_up{dependency="accounting"} 0');
    advance(4_500);
    for (let i = 0; i < 5; i++) d.ok();
    expect(lines).toEqual([
      { msg: 'dependency lost', obj: { dependency: 'accounting', address: '10.0.0.1:7071', err: 'UNAVAILABLE: connect ECONNREFUSED' } },
      { msg: 'dependency back', obj: { dependency: 'accounting', address: '10.0.0.1:7071', down_ms: 4_500, failures: 50 } },
    ]);
    expect(await registry.metrics()).toContain('llmgw_dependency_up{dependency="accounting"} 1');
    expect(deps.get('accounting')).toBe(d);
  });

  it('with several sources, is lost at the first one down and back once all are up', () => {
    const { lines, deps, advance } = setup();
    const d = deps.get('redis 127.0.0.1:6379');
    d.lost('ECONNREFUSED', 'tenancy');
    d.lost('ECONNREFUSED', 'endpoint source');
    advance(100);
    d.ok('tenancy');
    expect(d.up).toBe(false);
    d.ok('endpoint source');
    expect(d.up).toBe(true);
    expect(lines.map((l) => [l.msg, l.obj.source ?? l.obj.down_ms])).toEqual([
      ['dependency lost', 'tenancy'],
      ['dependency back', 100],
    ]);
  });

  it('forgets a source that closes while lost, without a back line', () => {
    const { lines, deps } = setup();
    const d = deps.get('redis x');
    d.lost('gone', 'a');
    d.forget('a');
    expect(d.up).toBe(true);
    expect(lines.map((l) => l.msg)).toEqual(['dependency lost']);
  });
});
