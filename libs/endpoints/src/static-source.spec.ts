import { endpointFlagsToConfig, parseEndpointFlag, StaticEndpointSource } from './static-source';

describe('parseEndpointFlag', () => {
  it.each([
    [
      'a=http://127.0.0.1:8000=llama',
      { id: 'a', url: 'http://127.0.0.1:8000', model: 'llama', engine: 'vllm', pool: 'default', weight: 100, priority: 0, draining: false },
    ],
    [
      'b=http://h:1/=m,engine=sglang,pool=h100,weight=50,priority=7',
      { id: 'b', url: 'http://h:1', model: 'm', engine: 'sglang', pool: 'h100', weight: 50, priority: 7 },
    ],
    ['c=https://x.example/v=q=m,engine=llamacpp', { id: 'c', url: 'https://x.example/v=q', model: 'm', engine: 'llamacpp', schedulingPolicy: 'fcfs' }],
    ['d=http://h:1=m,scheduling_policy=priority', { id: 'd', schedulingPolicy: 'priority' }],
    ['e=http://h:1=m,max_num_seqs=256', { id: 'e', maxNumSeqs: 256 }],
  ])('%s', (flag, want) => {
    expect(parseEndpointFlag(flag)).toMatchObject(want);
  });

  it.each([
    ['no model', 'a=http://h:1'],
    ['not a url', 'a=ftp://h=m'],
    ['bad engine', 'a=http://h:1=m,engine=tgi'],
    ['bad weight', 'a=http://h:1=m,weight=-1'],
    ['bad priority', 'a=http://h:1=m,priority=1.5'],
    ['unknown option', 'a=http://h:1=m,colour=red'],
    ['bad scheduling policy', 'a=http://h:1=m,scheduling_policy=lifo'],
    ['bad max_num_seqs', 'a=http://h:1=m,max_num_seqs=0'],
  ])('rejects %s', (_what, flag) => {
    expect(() => parseEndpointFlag(flag)).toThrow(/--endpoint/);
  });
});

describe('StaticEndpointSource', () => {
  it('groups by model, notifies on set, rejects duplicates', () => {
    const s = new StaticEndpointSource([parseEndpointFlag('a=http://h:1=m1'), parseEndpointFlag('b=http://h:2=m1'), parseEndpointFlag('c=http://h:3=m2')]);
    expect(s.endpoints('m1').map((e) => e.id)).toEqual(['a', 'b']);
    expect(s.models().sort()).toEqual(['m1', 'm2']);
    expect(s.endpoints('nope')).toEqual([]);
    let n = 0;
    s.subscribe(() => n++);
    s.set([{ name: 'z', url: 'http://h:9', model: 'm3' }]);
    expect(n).toBe(1);
    expect(s.models()).toEqual(['m3']);
    expect(() =>
      s.set([
        { name: 'z', url: 'http://h:9', model: 'm3' },
        { name: 'z', url: 'http://h:8', model: 'm3' },
      ]),
    ).toThrow(/duplicate/);
  });
});

describe('endpointFlagsToConfig', () => {
  it('turns --endpoint flags into config entries with defaults filled in', () => {
    expect(endpointFlagsToConfig(['a=http://127.0.0.1:8001=llama', 'b=http://h:2=llama,engine=sglang,pool=h100,weight=50,priority=7,draining'])).toEqual([
      {
        name: 'a',
        url: 'http://127.0.0.1:8001',
        model: 'llama',
        engine: 'vllm',
        pool: 'default',
        weight: 100,
        priority: 0,
        draining: false,
        scheduling_policy: 'fcfs',
      },
      { name: 'b', url: 'http://h:2', model: 'llama', engine: 'sglang', pool: 'h100', weight: 50, priority: 7, draining: true, scheduling_policy: 'fcfs' },
    ]);
  });

  it('reports a bad flag', () => {
    expect(() => endpointFlagsToConfig(['nonsense'])).toThrow(/expected name=url=model/);
  });
});
