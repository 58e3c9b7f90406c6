import type { controlV1 } from '@llmgw/contracts';

/** A node state as ListNodes' `state` filter and `counts_by_state` name it: "NODE_STATE_READY" → "ready". */
export const nodeStateName = (s: string): string => s.replace(/^NODE_STATE_/, '').toLowerCase();

/**
 * One page of ListNodes (docs/portal.md, "Scale"): the nodes matching
 * `state`, `page_size` at a time, with counts over the whole fleet, so a
 * fleet page moves one page of full node records instead of every node.
 * `page_size` 0 answers every matching node.
 */
export function pageOfNodes(all: readonly controlV1.Node[], req: Partial<controlV1.ListNodesRequest__Output>): controlV1.ListNodesResponse {
  const counts: Record<string, number> = {};
  for (const n of all) {
    const s = nodeStateName(String(n.state ?? ''));
    counts[s] = (counts[s] ?? 0) + 1;
  }
  const want = (req.state ?? '').trim().toLowerCase();
  const matching = want ? all.filter((n) => nodeStateName(String(n.state ?? '')) === want) : all;
  const size = req.pageSize ?? 0;
  const page = Math.max(1, req.page ?? 1);
  const nodes = size ? matching.slice((page - 1) * size, page * size) : [...matching];
  return { nodes, total: all.length, matching: matching.length, countsByState: counts };
}
