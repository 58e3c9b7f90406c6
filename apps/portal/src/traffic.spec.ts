import { parseMetrics, quantile } from './traffic';

const TEXT = `# HELP llmgw_ttft_seconds x
# TYPE llmgw_ttft_seconds histogram
llmgw_ttft_seconds_bucket{le="0.05",model="m",pool="a"} 10
llmgw_ttft_seconds_bucket{le="0.1",model="m",pool="a"} 90
llmgw_ttft_seconds_bucket{le="+Inf",model="m",pool="a"} 100
llmgw_ttft_seconds_bucket{le="0.05",model="n",pool="a"} 0
llmgw_ttft_seconds_bucket{le="0.1",model="n",pool="a"} 0
llmgw_ttft_seconds_bucket{le="+Inf",model="n",pool="a"} 100
llmgw_requests_total{model="m",pool="a",status="200"} 7
bad line
`;

describe('traffic metrics', () => {
  it('parses samples with labels and skips comments and junk', () => {
    const s = parseMetrics(TEXT);
    expect(s.find((x) => x.name === 'llmgw_requests_total')).toEqual({
      name: 'llmgw_requests_total',
      labels: { model: 'm', pool: 'a', status: '200' },
      value: 7,
    });
    expect(s).toHaveLength(7);
  });
  it('takes quantiles over every series summed', () => {
    const s = parseMetrics(TEXT);
    // 200 observations: 10 ≤ 50 ms, 90 ≤ 100 ms, the rest above.
    expect(quantile(s, 'llmgw_ttft_seconds', 0.05)).toBe(0.05);
    expect(quantile(s, 'llmgw_ttft_seconds', 0.4)).toBe(0.1);
    expect(quantile(s, 'llmgw_ttft_seconds', 0.95)).toBe(Infinity);
    expect(quantile([], 'llmgw_ttft_seconds', 0.5)).toBeUndefined();
  });
});
