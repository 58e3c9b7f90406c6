import type { ControlClient } from '@llmgw/control-rpc';
import { placementFailures } from './placement-failures';

const model = (name: string, ready: number, desired: number) => ({ name, replicasReady: ready, replicasDesired: desired });

function fakeControl(models: ReturnType<typeof model>[], explained: string[]): ControlClient {
  return {
    unary: async (method: string, req: { model?: string }) => {
      if (method === 'ListModels') return { models };
      explained.push(req.model!);
      if (req.model === 'broken') throw new Error('placement-scheduler unavailable');
      return {
        profiles: [
          { profile: 'h100x2', reason: 'REJECT_REASON_INSUFFICIENT_GPUS', detail: 'needs 2 free GPUs; best node has 1' },
          { profile: 'a100x4', reason: 'REJECT_REASON_GPU_CLASS', detail: '' },
        ],
      };
    },
  } as unknown as ControlClient;
}

describe('placementFailures (the fleet page)', () => {
  it("explains only the models short of replicas, with each profile's reason", async () => {
    const explained: string[] = [];
    const r = await placementFailures(fakeControl([model('ok', 2, 2), model('short', 1, 3), model('broken', 0, 1)], explained));
    expect(explained.sort()).toEqual(['broken', 'short']);
    expect(r.failures.find((f) => f.model === 'short')).toEqual({
      model: 'short',
      ready: 1,
      desired: 3,
      profiles: [
        { profile: 'h100x2', reason: 'insufficient gpus', detail: 'needs 2 free GPUs; best node has 1' },
        { profile: 'a100x4', reason: 'gpu class', detail: '' },
      ],
    });
    expect(r.failures.find((f) => f.model === 'broken')?.profiles).toEqual([
      { profile: '-', reason: 'explain failed', detail: 'placement-scheduler unavailable' },
    ]);
    expect(r.unexplained).toEqual([]);
  });

  it('explains at most ten per view and names the rest', async () => {
    const explained: string[] = [];
    const r = await placementFailures(
      fakeControl(
        Array.from({ length: 12 }, (_, i) => model(`m${i}`, 0, 1)),
        explained,
      ),
    );
    expect(explained).toHaveLength(10);
    expect(r.unexplained).toEqual(['m10', 'm11']);
  });
});
