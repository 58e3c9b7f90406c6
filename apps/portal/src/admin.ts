import type { accountingV1, controlV1 } from '@llmgw/contracts';
import { LlmgwError } from '@llmgw/errors';
import { withActor } from '@llmgw/grpc';
import type { FastifyInstance } from 'fastify';
import type { Ctx } from './context';
import { placementFailures } from './placement-failures';
import { hourlySeries } from './series';
import { Snapshot } from './snapshot';
import { mustRole } from './roles';
import { allowed, type Person } from './session';

type Form = Record<string, string | undefined>;
const str = (v: unknown, max = 300) => (typeof v === 'string' ? v.slice(0, max) : '');

/** How the usage page can group (accounting's QueryUsage group_by). */
const USAGE_GROUPS = ['model', 'org', 'team', 'project', 'key'];

/** Nodes per fleet page. */
const FLEET_PAGE = 50;

const STATE = (s: string) => s.replace(/^[A-Z]+_STATE_/, '').toLowerCase();
const NODE_ACTIONS: Record<string, { method: string; verb: string }> = {
  cordon: { method: 'CordonNode', verb: 'cordoned' },
  drain: { method: 'DrainNode', verb: 'draining' },
  uncordon: { method: 'UncordonNode', verb: 'uncordoned' },
};

export function nodeView(n: controlV1.Node__Output) {
  const gpus = n.info?.gpus ?? [];
  const held = new Set(n.allocations.map((a) => a.gpuIndex));
  const classes = [...new Set(gpus.map((g) => g.gpuClass || g.name))].join(', ');
  return {
    id: n.info?.nodeId ?? '?',
    state: STATE(n.state),
    reason: n.stateReason,
    gpus: `${gpus.filter((g) => !held.has(g.index)).length}/${gpus.length} free`,
    classes,
    fabric: (n.info?.fabrics ?? []).map((f) => f.fabric).join(', ') || '-',
    shards: n.shards.map((s) => ({ id: s.shardId, model: s.spec?.model ?? '-', state: STATE(s.state) })),
  };
}

/** `/admin`: fleet, models, people, usage, audit, settings (docs/portal.md, "Pages"). */
export function registerAdmin(app: FastifyInstance, c: Ctx): void {
  const control = () => {
    if (!c.control) throw new LlmgwError('LLMGW_ERR_UNAVAILABLE', 'this portal has no control service configured');
    return c.control;
  };
  const as = (p: Person) => ({ metadata: withActor(p.email), actor: p.email });
  app.get('/admin', async (req, reply) => {
    const p = mustRole(req, reply, 'viewer');
    if (!p) return reply;
    // One page of nodes per view, asked of the control service (docs/portal.md, "Scale"): the counts cover
    // the whole fleet; ?state= narrows to one state.
    const q = req.query as Form;
    const want = str(q.state, 30);
    const page = Math.max(1, Number(q.page) || 1);
    const [r, placement] = c.control
      ? await Promise.all([control().listNodes({}, { pageSize: FLEET_PAGE, page, state: want }), placementFailures(control())])
      : [
          { nodes: [], total: 0, matching: 0, countsByState: {} },
          { failures: [], unexplained: [] },
        ];
    const pages = Math.max(1, Math.ceil(r.matching / FLEET_PAGE));
    return c.page(req, reply, 'admin-fleet', {
      nodes: r.nodes.map(nodeView),
      total: r.total,
      matching: r.matching,
      counts: r.countsByState,
      page: Math.min(page, pages),
      pages,
      state: want,
      placement,
      canAct: allowed(p, 'operator'),
    });
  });

  app.post('/admin/nodes', async (req, reply) => {
    const p = mustRole(req, reply, 'operator');
    if (!p) return reply;
    const f = req.body as Form;
    const a = NODE_ACTIONS[str(f.action)];
    if (!a) throw new LlmgwError('LLMGW_ERR_INVALID_ARGUMENT', 'action must be cordon, drain or uncordon', { param: 'action' });
    const nodeId = str(f.node, 200);
    const reason = str(f.reason, 200) || `from the portal by ${p.email}`;
    const req2 = a.method === 'UncordonNode' ? { nodeId } : a.method === 'DrainNode' ? { nodeId, reason, replicaDrainTimeoutMs: 0 } : { nodeId, reason };
    await control().unary<controlV1.NodeAdminResponse__Output>(a.method as never, req2, { metadata: as(p).metadata });
    return reply.redirect('/admin', 303);
  });

  app.get('/admin/models', async (req, reply) => {
    if (!mustRole(req, reply, 'viewer')) return reply;
    const [models, replicas] = await Promise.all([
      control().unary<controlV1.ListModelsResponse__Output>('ListModels', {}),
      control().unary<controlV1.ListReplicasResponse__Output>('ListReplicas', {}),
    ]);
    return c.page(req, reply, 'admin-models', { models: models.models, replicas: replicas.replicas.map((r) => ({ ...r, stateName: STATE(String(r.state)) })) });
  });

  app.get('/admin/people', async (req, reply) => {
    const p = mustRole(req, reply, 'viewer');
    if (!p) return reply;
    const [accounts, projects] = await Promise.all([
      c.accounting.account<accountingV1.ListAccountsResponse__Output>('ListAccounts', {}),
      c.accounting.call<accountingV1.ListProjectsResponse__Output>('ListProjects', {}),
    ]);
    const projectNames = Object.fromEntries(projects.projects.map((x) => [x.id, x.name]));
    return c.page(req, reply, 'admin-people', {
      accounts: accounts.accounts,
      projects: projects.projects,
      projectNames,
      canAct: allowed(p, 'operator'),
      isAdmin: p.role === 'admin',
    });
  });

  app.post('/admin/people', async (req, reply) => {
    const f = req.body as Form;
    const action = str(f.action);
    const p = mustRole(req, reply, action === 'role' ? 'admin' : 'operator');
    if (!p) return reply;
    const r = await c.accounting.account<accountingV1.UpdateAccountResponse__Output>(
      'UpdateAccount',
      { ref: str(f.account), action, role: str(f.role), project: str(f.project) },
      { actor: p.email },
    );
    if (r.password)
      return c.page(req, reply, 'message', {
        heading: `New password for ${r.account?.email}`,
        message: 'Shown once; hand it over privately. Their sessions have been signed out.',
        secret: r.password,
        link: { href: '/admin/people', text: 'Back to people' },
      });
    return reply.redirect('/admin/people', 303);
  });

  app.post('/admin/links', async (req, reply) => {
    const p = mustRole(req, reply, 'operator');
    if (!p) return reply;
    const f = req.body as Form;
    const l = await c.accounting.account<accountingV1.ClaimLinkCreated__Output>(
      'CreateClaimLink',
      {
        kind: str(f.kind),
        email: str(f.email),
        name: str(f.name),
        role: str(f.role) || 'user',
        project: str(f.project),
        account: str(f.account),
        keyName: str(f.key_name, 100),
      },
      { actor: p.email },
    );
    const base = c.cfg.public_url ?? `${req.protocol}://${req.host}`;
    return c.page(req, reply, 'message', {
      heading: 'One-time link',
      message: `Works once, until ${new Date(Number(l.expiresAtMs)).toISOString()}. Send it privately.`,
      secret: `${base.replace(/\/$/, '')}/claim#${l.token}`,
      link: { href: '/admin/people', text: 'Back to people' },
    });
  });

  // Usage over days of a large ledger is summed once per window and grouping and shared for 30 s (5 min
  // stale at most, refreshed behind the page): the page trails the ledger by at most that.
  const usage = new Map<string, Snapshot<accountingV1.UsageRow__Output[]>>();
  const usageRows = (groupBy: string, days: number) => {
    const k = `${groupBy}:${days}`;
    let snap = usage.get(k);
    if (!snap) {
      const load = async () =>
        (await c.accounting.call<accountingV1.QueryUsageResponse__Output>('QueryUsage', { fromMs: (c.now ?? Date.now)() - days * 86_400_000, groupBy })).rows;
      usage.set(k, (snap = new Snapshot(load, { freshMs: 30_000, staleMs: 300_000 }, c.now)));
    }
    return snap.get();
  };
  const windowOf = (q: unknown) => {
    const days = Math.min(90, Math.max(1, Math.round(Number((q as { days?: string }).days)) || 7));
    return { days, from: (c.now ?? Date.now)() - days * 86_400_000 };
  };

  app.get('/admin/usage', async (req, reply) => {
    if (!mustRole(req, reply, 'viewer')) return reply;
    const group = USAGE_GROUPS.includes(str((req.query as Form).by)) ? str((req.query as Form).by) : 'model';
    const w = windowOf(req.query);
    const [rows, hours] = await Promise.all([usageRows(group, w.days), usageRows('hour', w.days)]);
    return c.page(req, reply, 'admin-usage', { rows, group, groups: USAGE_GROUPS, days: w.days, series: hourlySeries(hours, w.from, (c.now ?? Date.now)()) });
  });

  app.get('/admin/usage.csv', async (req, reply) => {
    if (!mustRole(req, reply, 'billing')) return reply;
    const group = [...USAGE_GROUPS, 'hour'].includes(str((req.query as Form).by)) ? str((req.query as Form).by) : 'model';
    const rows = await usageRows(group, windowOf(req.query).days);
    const q = (v: string) => (/[",\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
    const lines = [
      `${group},requests,refused,failed,prompt_tokens,completion_tokens,cached_tokens,cost_micros`,
      ...rows.map((r) => [q(r.group), r.requests, r.refused, r.failed, r.promptTokens, r.completionTokens, r.cachedTokens, r.costMicros].join(',')),
    ];
    return reply
      .type('text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="usage-by-${group}.csv"`)
      .send(lines.join('\n') + '\n');
  });

  app.get('/admin/audit', async (req, reply) => {
    if (!mustRole(req, reply, 'viewer')) return reply;
    const events = (await c.accounting.call<accountingV1.ListAuditResponse__Output>('ListAudit', { limit: 200 })).events;
    return c.page(req, reply, 'admin-audit', {
      events: events.map((e) => ({ ...e, at: new Date(Number(e.atMs)).toISOString().replace('T', ' ').slice(0, 19) })),
    });
  });

  app.get('/admin/settings', async (req, reply) => {
    const p = mustRole(req, reply, 'viewer');
    if (!p) return reply;
    const cfg = c.cfg;
    const settings = [
      ['title', cfg.title],
      ['public_url', cfg.public_url ?? '(the address each request names)'],
      ['router_url', cfg.router_url],
      ['accounting', cfg.accounting.address],
      ['control', cfg.control?.address ?? '(none)'],
      ['mTLS to services', cfg.accounting.tls?.cert ? 'yes (role portal)' : 'no'],
      ['chat key lifetime', `${Math.round(cfg.chat_key_ttl / 60_000)} min`],
      ['cookie secret', cfg.cookie_secret ? 'configured (shared by every portal)' : 'random per process'],
    ];
    return c.page(req, reply, 'admin-settings', { settings, isAdmin: p.role === 'admin' });
  });
}
