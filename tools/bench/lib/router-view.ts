/**
 * The router's own view of a load phase, beside what the clients saw (`tools/bench/data-path.ts`):
 * from its /metrics before and after, the share of the phase's requests it timed (arrival to the
 * last byte it wrote, `llmgw_request_duration_seconds`) under each bound, and the same for how long
 * their last bytes then waited for the usage record (`llmgw_usage_durable_hold_seconds`). A client
 * tail that the router's own timings do not hold was spent outside the router's request: in the
 * kernel, before the request was read, or in the load generator.
 */

/** Cumulative bucket counts (le → count, summed over labels) of the two histograms. */
export interface ViewSnap {
  duration: Map<string, number>;
  hold: Map<string, number>;
}

const BOUNDS = ['0.001', '0.0025', '0.005', '0.01', '0.025'];

function buckets(text: string, name: string): Map<string, number> {
  const out = new Map<string, number>();
  const re = new RegExp(`^${name}_bucket\\{[^}]*le="([^"]+)"[^}]*\\} (\\S+)`, 'gm');
  for (const m of text.matchAll(re)) out.set(m[1], (out.get(m[1]) ?? 0) + Number(m[2]));
  return out;
}

export async function viewSnap(adminUrl: string): Promise<ViewSnap> {
  const text = await fetch(`${adminUrl}/metrics`).then((r) => r.text());
  return { duration: buckets(text, 'llmgw_request_duration_seconds'), hold: buckets(text, 'llmgw_usage_durable_hold_seconds') };
}

function shares(a: Map<string, number>, b: Map<string, number>): string {
  const n = (b.get('+Inf') ?? 0) - (a.get('+Inf') ?? 0);
  if (n <= 0) return 'none';
  return BOUNDS.map((le) => `≤${Number(le) * 1000} ms ${((100 * ((b.get(le) ?? 0) - (a.get(le) ?? 0))) / n).toFixed(1)} %`).join(', ');
}

/** One printed line: the router's timings of the requests between two snapshots. */
export function viewLine(a: ViewSnap, b: ViewSnap): string {
  return `          the router's own timing: ${shares(a.duration, b.duration)}; last bytes held for the usage record: ${shares(a.hold, b.hold)}`;
}
