import { Engines, postJson } from './helpers';

const engines = new Engines();
afterEach(() => engines.closeAll());

async function texts(seed: number, prompts: string[]): Promise<string[]> {
  const h = await engines.start({ models: ['m'], seed, decodeTps: 0, prefillTps: 0 });
  const out: string[] = [];
  for (const p of prompts) {
    const r = await (await postJson(`${h.url}/v1/chat/completions`, { model: 'm', messages: [{ role: 'user', content: p }], max_tokens: 12 })).json();
    out.push(r.choices[0].message.content);
  }
  return out;
}

async function failures(seed: number, n: number): Promise<number[]> {
  const h = await engines.start({ models: ['m'], seed, failRate: 0.5, decodeTps: 0, prefillTps: 0 });
  const statuses: number[] = [];
  for (let i = 0; i < n; i++) statuses.push((await postJson(`${h.url}/v1/completions`, { model: 'm', prompt: 'x', max_tokens: 1 })).status);
  return statuses;
}

describe('--seed makes runs deterministic', () => {
  const prompts = ['alpha', 'beta', 'gamma'];
  it('the same seed gives the same text; another seed another text', async () => {
    const a = await texts(42, prompts);
    const b = await texts(42, prompts);
    const c = await texts(43, prompts);
    expect(a).toEqual(b);
    expect(a).not.toEqual(c);
    expect(new Set(a).size).toBe(3); // prompts differ → texts differ
  });

  it('--fail-rate failures follow the seed', async () => {
    const a = await failures(1, 40);
    const b = await failures(1, 40);
    const c = await failures(2, 40);
    expect(a).toEqual(b);
    expect(a).not.toEqual(c);
    const failed = a.filter((s) => s === 500).length;
    expect(failed).toBeGreaterThan(8);
    expect(failed).toBeLessThan(32);
    expect(a.every((s) => s === 200 || s === 500)).toBe(true);
  });
});
