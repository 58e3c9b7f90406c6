import { EndpointHealth, type BreakerState } from './endpoint-health';

function make(over: Partial<ConstructorParameters<typeof EndpointHealth>[0]> = {}) {
  let t = 1000;
  const h = new EndpointHealth({ cooldownMs: 0, failureThreshold: 2, scrapeFailureThreshold: 3, baseBackoffMs: 100, maxBackoffMs: 350, now: () => t, ...over });
  const transitions: string[] = [];
  h.onTransition = (_id, from: BreakerState, to: BreakerState) => transitions.push(`${from}>${to}`);
  return { h, transitions, advance: (ms: number) => (t += ms) };
}

describe('EndpointHealth', () => {
  it('cools an erroring endpoint down for cooldownMs', () => {
    const { h, advance } = make({ cooldownMs: 500, failureThreshold: 99 });
    h.failure('a');
    expect(h.available('a')).toBe(false);
    advance(499);
    expect(h.available('a')).toBe(false);
    advance(2);
    expect(h.available('a')).toBe(true);
  });

  it('opens after the threshold, half-opens after backoff, admits one probe, doubles backoff on a failed probe, closes on success', () => {
    const { h, transitions, advance } = make();
    h.failure('a');
    expect(h.breaker('a')).toBe('closed');
    h.failure('a');
    expect(h.breaker('a')).toBe('open');
    expect(h.available('a')).toBe(false);
    advance(100);
    expect(h.breaker('a')).toBe('half_open');
    expect(h.available('a')).toBe(true);
    h.begin('a');
    expect(h.available('a')).toBe(false); // one probe at a time
    h.failure('a');
    h.end('a');
    expect(h.breaker('a')).toBe('open');
    advance(150);
    expect(h.breaker('a')).toBe('open'); // backoff doubled to 200
    advance(50);
    expect(h.breaker('a')).toBe('half_open');
    h.begin('a');
    h.success('a');
    h.end('a');
    expect(h.breaker('a')).toBe('closed');
    expect(transitions).toEqual(['closed>open', 'open>half_open', 'half_open>open', 'open>half_open', 'half_open>closed']);
  });

  it('caps the backoff at maxBackoffMs', () => {
    const { h, advance } = make({ failureThreshold: 1 });
    h.failure('a');
    for (let i = 0; i < 5; i++) {
      advance(10_000);
      expect(h.breaker('a')).toBe('half_open');
      h.failure('a');
    }
    advance(349);
    expect(h.breaker('a')).toBe('open');
    advance(1);
    expect(h.breaker('a')).toBe('half_open');
  });

  it('trips on three consecutive scrape failures', () => {
    const { h } = make();
    h.scrapeFailures('a', 1);
    h.scrapeFailures('a', 2);
    expect(h.breaker('a')).toBe('closed');
    h.scrapeFailures('a', 3);
    expect(h.breaker('a')).toBe('open');
  });

  it('half-open: no client request is the probe while scrapes get no answer; an answered scrape lets it through', () => {
    const { h, transitions, advance } = make();
    for (let n = 1; n <= 3; n++) h.scrapeFailures('a', n, true);
    expect(h.breaker('a')).toBe('open');
    advance(100);
    expect(h.breaker('a')).toBe('half_open');
    expect(h.available('a')).toBe(false); // the engine is unreachable: the scraper probes, not a client
    h.scrapeFailures('a', 4, true);
    expect(h.breaker('a')).toBe('open'); // still dark: open again, backoff doubled
    advance(200);
    expect(h.available('a')).toBe(false);
    h.scrapeFailures('a', 0, false); // a good scrape
    expect(h.available('a')).toBe(true);
    h.begin('a');
    h.success('a');
    h.end('a');
    expect(transitions).toEqual(['closed>open', 'open>half_open', 'half_open>open', 'open>half_open', 'half_open>closed']);
  });

  it('half-open after answered but failing scrapes (HTTP errors): a client request may still probe', () => {
    const { h, advance } = make();
    for (let n = 1; n <= 3; n++) h.scrapeFailures('a', n, false);
    advance(100);
    expect(h.breaker('a')).toBe('half_open');
    expect(h.available('a')).toBe(true);
  });

  it('counts inflight', () => {
    const { h } = make();
    h.begin('a');
    h.begin('a');
    h.end('a');
    expect(h.inflight('a')).toBe(1);
  });
});
