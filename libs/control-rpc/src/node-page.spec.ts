import type { controlV1 } from '@llmgw/contracts';
import { pageOfNodes } from './node-page';

const node = (i: number, state: string) => ({ info: { nodeId: `n${String(i).padStart(3, '0')}` }, state }) as controlV1.Node;
const fleet = Array.from({ length: 120 }, (_, i) => node(i, i % 10 === 0 ? 'NODE_STATE_CORDONED' : 'NODE_STATE_READY'));
const ids = (r: controlV1.ListNodesResponse) => (r.nodes ?? []).map((n) => n.info?.nodeId);

describe('pageOfNodes (ListNodes paging)', () => {
  it('answers every node when no page size is asked, with counts per state', () => {
    const r = pageOfNodes(fleet, {});
    expect(r.nodes).toHaveLength(120);
    expect(r).toMatchObject({ total: 120, matching: 120, countsByState: { ready: 108, cordoned: 12 } });
  });

  it('answers one page of the nodes in a state, counts still over the whole fleet', () => {
    expect(ids(pageOfNodes(fleet, { pageSize: 50, page: 2 }))).toEqual(fleet.slice(50, 100).map((n) => n.info?.nodeId));
    expect(ids(pageOfNodes(fleet, { pageSize: 50, page: 3 }))).toHaveLength(20);
    expect(ids(pageOfNodes(fleet, { pageSize: 50, page: 4 }))).toEqual([]);
    const c = pageOfNodes(fleet, { pageSize: 5, page: 0, state: 'Cordoned' });
    expect(ids(c)).toEqual(['n000', 'n010', 'n020', 'n030', 'n040']);
    expect(c).toMatchObject({ total: 120, matching: 12, countsByState: { ready: 108, cordoned: 12 } });
  });
});
