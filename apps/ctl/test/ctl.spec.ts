import { spawnRole, type SpawnedRole } from '@llmgw/testing';
import type { Command } from 'commander';
import { buildProgram, CtlContext, main } from '../src/main';
import { applyLimitFlags } from '../src/commands/limit';

interface Run {
  code: number;
  out: string;
  err: string;
  json<T = any>(): T;
}

let acct: SpawnedRole;
let addr: string;

async function ctl(...argv: string[]): Promise<Run> {
  let out = '';
  let err = '';
  const code = await main(
    argv,
    { stdout: { write: (s: string) => (out += s) }, stderr: { write: (s: string) => (err += s) } },
    { accountingAddr: addr, actor: 'tester@ci' },
  );
  return { code, out, err, json: () => JSON.parse(out) };
}

beforeAll(async () => {
  acct = await spawnRole('accounting', ['--port', '0', '--admin-port', '0', '--database-url', 'pglite:memory', '--log-level', 'info']);
  addr = acct.urls.grpc;
}, 180_000);

afterAll(async () => {
  await acct?.stop();
});

function leaves(cmd: Command): Command[] {
  return cmd.commands.length ? cmd.commands.flatMap(leaves) : [cmd];
}

describe('llmgw ctl', () => {
  it('offers --json and --help on every command', async () => {
    const program = buildProgram(new CtlContext({ stdout: { write: () => 0 }, stderr: { write: () => 0 } }, { actor: 'x' }));
    const all = leaves(program);
    expect(all.length).toBeGreaterThanOrEqual(20);
    for (const c of all) expect(c.options.map((o) => o.long)).toContain('--json');
    const help = await ctl('key', 'create', '--help');
    expect(help.code).toBe(0);
    expect(help.out).toMatch(/--project <project>/);
    expect(help.out).toMatch(/ONCE/);
  });

  it('walks the tree: org → team → project → key → limit, text and JSON', async () => {
    const org = await ctl('org', 'create', 'acme', '--json');
    expect(org.code).toBe(0);
    expect(org.json()).toMatchObject({ name: 'acme', id: expect.stringMatching(/^org_/) });
    expect((await ctl('team', 'create', 'ml', '--org', 'acme')).out).toMatch(/created team ml \(team_/);
    expect((await ctl('project', 'create', 'chat', '--team', 'ml', '--band', 'gold')).code).toBe(0);

    const key = await ctl('key', 'create', '--project', 'chat', '--name', 'bot', '--json');
    expect(key.code).toBe(0);
    expect(key.err).toMatch(/only time the key is shown/);
    const k = key.json();
    expect(k.secret).toMatch(/^sk-llmgw-[0-9A-Za-z]{40,}$/);

    const text = await ctl('key', 'create', '--project', 'chat', '--name', 'bot2');
    expect(text.out.split('\n')[0]).toMatch(/^sk-llmgw-/);

    const listed = await ctl('key', 'list', '--json');
    expect(listed.json().map((x: any) => x.name)).toEqual(['bot', 'bot2']);
    expect(listed.out).not.toContain(k.secret);

    expect((await ctl('limit', 'set', 'org', 'acme', '--rpm', '100', '--budget', '2.5', '--period', 'day')).out).toMatch(/rpm 100, budget 2.5 units\/day/);
    expect((await ctl('limit', 'set', 'key', k.id, '--rpm', '10', '--models', 'a,b')).code).toBe(0);
    expect((await ctl('limit', 'set', 'org', 'acme', '--tpm', '5000')).json === undefined).toBe(false);
    const orgLimit = (await ctl('limit', 'show', 'org', 'acme', '--json')).json();
    expect(orgLimit).toMatchObject({ hasRpm: true, rpm: 100, hasTpm: true, tpm: 5000, hasBudget: true, budgetMicros: 2_500_000, budgetPeriod: 'day' });

    const shown = await ctl('key', 'show', 'bot', '--json');
    const s = shown.json();
    expect(s.resolved.limits.rpm.map((x: any) => x.limit)).toEqual([10, 100]);
    expect(s.resolved.limits.allowedModels).toEqual(['a', 'b']);
    expect(s.budgets).toEqual([expect.objectContaining({ limitMicros: 2_500_000, spentMicros: 0, period: 'day' })]);
    expect((await ctl('key', 'show', 'bot')).out).toMatch(/band:\s+gold/);

    expect((await ctl('key', 'revoke', k.id)).out).toMatch(/revoked sk-llmgw-/);
    expect((await ctl('key', 'list', '--json')).json().map((x: any) => x.name)).toEqual(['bot2']);
    expect((await ctl('key', 'list', '--all', '--json')).json()).toHaveLength(2);

    const audit = (await ctl('audit', '--json')).json();
    expect(audit[0]).toMatchObject({ action: 'key.revoke', actor: 'tester@ci', targetId: k.id });
    expect(audit.map((e: any) => e.action)).toEqual(expect.arrayContaining(['org.create', 'team.create', 'project.create', 'key.create', 'limit.set']));

    expect((await ctl('org', 'show', 'acme')).out).toMatch(/rpm 100/);
    expect((await ctl('usage', '--by', 'model', '--json')).json()).toEqual([]);
    expect((await ctl('usage', '--by', 'status', '--json')).json()).toEqual([]);
    expect((await ctl('usage', '--by', 'adapter', '--json')).json()).toEqual([]);
    expect((await ctl('limit', 'list', '--json')).json()).toHaveLength(2);
  });

  it.each([
    [['org', 'create', 'acme'], 1, /already exists/],
    [['team', 'show', 'nope'], 1, /team "nope" not found/],
    [['key', 'create', '--project', 'chat'], 2, /--name/],
    [['limit', 'set', 'galaxy', 'x', '--rpm', '1'], 2, /scope must be one of/],
    [['limit', 'set', 'org', 'acme', '--rpm', 'lots'], 2, /non-negative integer/],
    [['limit', 'set', 'org', 'acme'], 2, /nothing to set/],
    [['key', 'create', '--project', 'chat', '--name', 'x', '--expires', 'someday'], 2, /neither a date/],
    [['usage', '--scope', 'nope'], 2, /--scope must look like/],
    [['usage', '--by', 'colour'], 2, /--by must be model, adapter, key, project, team, org, hour or status/],
    [['bogus'], 2, /unknown command/],
  ])('ctl %j fails clearly (exit %d)', async (argv, code, msg) => {
    const r = await ctl(...(argv as string[]));
    expect(r.code).toBe(code);
    expect(r.err).toMatch(msg);
  });

  it('--json errors are JSON on stdout too', async () => {
    const r = await ctl('team', 'show', 'nope', '--json');
    expect(r.code).toBe(1);
    expect(r.json()).toEqual({ error: { code: 'LLMGW_ERR_NOT_FOUND', message: 'team "nope" not found' } });
  });

  it('says where it tried when accounting is down', async () => {
    let err = '';
    const code = await main(
      ['org', 'list', '--timeout', '1500'],
      { stdout: { write: () => 0 }, stderr: { write: (s: string) => (err += s) } },
      { accountingAddr: '127.0.0.1:1', actor: 'x' },
    );
    expect(code).toBe(1);
    expect(err).toMatch(/cannot reach accounting at 127\.0\.0\.1:1/);
  });
});

describe('limit flag merging', () => {
  const cur = {
    scopeType: 'org',
    scopeId: 'o',
    hasRpm: true,
    rpm: 5,
    hasTpm: false,
    tpm: 0,
    hasBudget: true,
    budgetMicros: 7,
    budgetPeriod: 'day',
    modelsRestricted: false,
    allowedModels: [],
    updatedAtMs: 1,
  };
  it.each([
    [{ tpm: '9' }, { hasRpm: true, rpm: 5, hasTpm: true, tpm: 9, hasBudget: true }],
    [{ rpm: 'none' }, { hasRpm: false, hasBudget: true }],
    [{ budget: '1.5' }, { hasBudget: true, budgetMicros: 1_500_000, budgetPeriod: 'day' }],
    [{ budget: 'none' }, { hasBudget: false }],
    [{ models: '' }, { modelsRestricted: true, allowedModels: [] }],
    [{ models: 'a, b' }, { modelsRestricted: true, allowedModels: ['a', 'b'] }],
    [{ models: 'all' }, { modelsRestricted: false }],
    [
      { replace: true, tpm: '3' },
      { hasTpm: true, tpm: 3 },
    ],
  ])('%j', (flags, want) => {
    expect(applyLimitFlags(cur, flags)).toMatchObject(want);
  });

  it('--replace drops what is not given', () => {
    expect(applyLimitFlags(cur, { replace: true, tpm: '3' })).toEqual({ hasTpm: true, tpm: 3 });
  });
});
