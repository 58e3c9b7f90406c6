import type { Command } from 'commander';
import type { accountingV1 } from '@llmgw/contracts';
import type { CtlContext } from '../context';
import { fields, parseExpiry, table, time, units, usage } from '../format';
import { withJson } from './shared';

const keyRow = (k: accountingV1.ApiKey__Output) => [
  k.id,
  k.keyPrefix + '…',
  k.name,
  k.projectId,
  k.band || '-',
  k.revokedAtMs ? `revoked ${time(k.revokedAtMs)}` : k.expiresAtMs && k.expiresAtMs <= Date.now() ? 'expired' : 'active',
  time(k.lastUsedAtMs),
];
const KEY_HEADER = ['ID', 'PREFIX', 'NAME', 'PROJECT', 'BAND', 'STATE', 'LAST USED'];

/** `ctl key …` */
export function registerKey(program: Command, ctx: CtlContext): void {
  const key = program.command('key').description('API keys: sk-llmgw-…, shown once at creation; stored only as a SHA-256 hash');
  withJson(
    key
      .command('create')
      .description('mint a key; its secret is printed ONCE and cannot be shown again')
      .requiredOption('--project <project>', 'project id or name')
      .requiredOption('--name <name>', 'a name for the key')
      .option('--band <band>', "priority band (overrides x-llmgw-band); default: the project's")
      .option('--profile <profile>', 'default routing profile')
      .option('--expires <when>', 'expiry: a date (2026-12-31) or a duration from now (30d)'),
  ).action(async (o: { project: string; name: string; band?: string; profile?: string; expires?: string }, cmd: Command) => {
    const expiresAt = o.expires ? parseExpiry(o.expires) : 0;
    const r = await ctx.accounting(cmd).call<accountingV1.CreatedKey__Output>('CreateKey', {
      project: o.project,
      name: o.name,
      band: o.band ?? '',
      routingProfile: o.profile ?? '',
      expiresAtMs: expiresAt,
    });
    ctx.warn('WARNING: this is the only time the key is shown. Store it now; llmgw keeps only its hash.');
    ctx.out(cmd, { ...r.key, secret: r.secret }, () =>
      [r.secret, '', fields({ id: r.key!.id, name: r.key!.name, project: r.key!.projectId, prefix: r.key!.keyPrefix })].join('\n'),
    );
  });
  withJson(key.command('list').description('list keys').option('--project <project>', 'only this project').option('--all', 'include revoked keys')).action(
    async (o: { project?: string; all?: boolean }, cmd: Command) => {
      const r = await ctx.accounting(cmd).call<accountingV1.ListKeysResponse__Output>('ListKeys', { project: o.project ?? '', includeRevoked: Boolean(o.all) });
      ctx.out(cmd, r.keys, () => table(KEY_HEADER, r.keys.map(keyRow)));
    },
  );
  withJson(key.command('show <key>').description("show a key (id, name or display prefix), its effective limits and this period's spend")).action(
    async (ref: string, _o, cmd: Command) => {
      const r = await ctx.accounting(cmd).call<accountingV1.KeyReport__Output>('ExplainKey', { ref });
      const k = r.key!;
      const l = r.resolved!.limits!;
      ctx.out(cmd, r, () =>
        [
          fields({
            id: k.id,
            name: k.name,
            prefix: k.keyPrefix + '…',
            project: k.projectId,
            team: r.resolved!.teamId,
            org: r.resolved!.orgId,
            band: r.resolved!.band || '(router default)',
            profile: k.routingProfile || '-',
            created: time(k.createdAtMs),
            expires: k.expiresAtMs ? time(k.expiresAtMs) : 'never',
            revoked: k.revokedAtMs ? time(k.revokedAtMs) : 'no',
            'last used': time(k.lastUsedAtMs),
            models: l.modelsRestricted ? `[${l.allowedModels.join(', ')}]` : 'all',
          }),
          '',
          table(['LIMIT', 'SCOPE', 'VALUE'], [...l.rpm.map((x) => ['rpm', x.scope, x.limit]), ...l.tpm.map((x) => ['tpm', x.scope, x.limit])]),
          '',
          table(
            ['BUDGET', 'SCOPE', 'SPENT', 'LIMIT', 'RESETS'],
            r.budgets.map((b) => [b.period, b.scope, units(b.spentMicros), units(b.limitMicros), time(b.periodEndMs)]),
          ),
        ].join('\n'),
      );
    },
  );
  withJson(key.command('revoke <key>').description('revoke a key (soft delete): refused by every router within a second')).action(
    async (ref: string, _o, cmd: Command) => {
      const k = await ctx.accounting(cmd).call<accountingV1.ApiKey__Output>('RevokeKey', { ref });
      ctx.out(cmd, k, () => `revoked ${k.keyPrefix}… (${k.id}) at ${time(k.revokedAtMs)}`);
    },
  );
  withJson(
    key
      .command('set <key>')
      .description("change a key's name, band, routing profile or expiry")
      .option('--name <name>', 'new name')
      .option('--band <band>', 'priority band ("-" = the project\'s)')
      .option('--profile <profile>', 'default routing profile ("-" clears it)')
      .option('--expires <when>', 'a date, a duration from now, or "never"'),
  ).action(async (ref: string, o: { name?: string; band?: string; profile?: string; expires?: string }, cmd: Command) => {
    if (!o.name && o.band === undefined && o.profile === undefined && o.expires === undefined)
      throw usage('nothing to set: pass --name, --band, --profile or --expires');
    const expiresAt = o.expires === undefined ? 0 : o.expires === 'never' ? -1 : parseExpiry(o.expires);
    const k = await ctx
      .accounting(cmd)
      .call<accountingV1.ApiKey__Output>('UpdateKey', { ref, name: o.name ?? '', band: o.band ?? '', routingProfile: o.profile ?? '', expiresAtMs: expiresAt });
    ctx.out(cmd, k, () => table(KEY_HEADER, [keyRow(k)]));
  });
}
