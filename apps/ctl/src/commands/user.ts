import type { Command } from 'commander';
import type { accountingV1 } from '@llmgw/contracts';
import type { CtlContext } from '../context';
import { table, time } from '../format';
import { withJson } from './shared';

type Account = accountingV1.Account__Output;

/** Prints a one-time link (`/claim#<token>`: the token rides in the fragment, never sent to a server). */
function printLink(ctx: CtlContext, cmd: Command, portal: string, r: accountingV1.ClaimLinkCreated__Output, extra: object): void {
  const link = `${portal.replace(/\/$/, '')}/claim#${r.token}`;
  ctx.out(cmd, { link, expires_at_ms: r.expiresAtMs, ...extra }, () => `${link}\nworks once, until ${time(Number(r.expiresAtMs))}`);
}

const rows = (as: Account[]) => as.map((a) => [a.email, a.name, a.status, a.role, a.projectId || '-', time(Number(a.createdAtMs))]);

/** `ctl user list|approve|suspend|reinstate|promote|reset-password|invite` (docs/portal.md). */
export function registerUser(program: Command, ctx: CtlContext): void {
  const user = program
    .command('user')
    .description('people who sign in to the portal: approve sign-ups, suspend (their keys stop on every router within a second), roles, invites')
    .addHelpText(
      'after',
      '\nExamples:\n  llmgw ctl user list\n  llmgw ctl user approve ann@example.com --project demo\n  llmgw ctl user promote ann@example.com operator\n  llmgw ctl user invite bo@example.com --name Bo --project demo',
    );
  const update = async (cmd: Command, req: object) => {
    const r = await ctx.accounting(cmd).account<accountingV1.UpdateAccountResponse__Output>('UpdateAccount', req);
    ctx.out(
      cmd,
      r,
      () => `${r.account?.email}: ${r.account?.status}, role ${r.account?.role}${r.password ? `\nnew password (shown once): ${r.password}` : ''}`,
    );
  };
  withJson(user.command('list', { isDefault: true }).description('every account, oldest first')).action(async (_o: unknown, cmd: Command) => {
    const r = await ctx.accounting(cmd).account<accountingV1.ListAccountsResponse__Output>('ListAccounts', {});
    ctx.out(cmd, r.accounts, () => table(['EMAIL', 'NAME', 'STATUS', 'ROLE', 'PROJECT', 'CREATED'], rows(r.accounts)));
  });
  withJson(
    user
      .command('approve <email>')
      .description('let a pending sign-up in, into a project')
      .option('--project <project>', 'the project their keys belong to (id or name)', ''),
  ).action((email: string, o: { project: string }, cmd: Command) => update(cmd, { ref: email, action: 'approve', project: o.project }));
  withJson(user.command('suspend <email>').description('sign them out everywhere and revoke every key they issued')).action(
    (email: string, _o: unknown, cmd: Command) => update(cmd, { ref: email, action: 'suspend' }),
  );
  withJson(user.command('reinstate <email>').description('let a suspended person sign in again (revoked keys stay revoked)')).action(
    (email: string, _o: unknown, cmd: Command) => update(cmd, { ref: email, action: 'reinstate' }),
  );
  withJson(user.command('promote <email> <role>').description('set the role: user | viewer | operator | billing | admin')).action(
    (email: string, role: string, _o: unknown, cmd: Command) => update(cmd, { ref: email, action: 'role', role }),
  );
  withJson(user.command('reset-password <email>').description('a new random password, shown once; their sessions end')).action(
    (email: string, _o: unknown, cmd: Command) => update(cmd, { ref: email, action: 'reset_password' }),
  );
  withJson(
    user
      .command('invite <email>')
      .description('a one-time link that lets a person set their password (printed once; the token is never stored)')
      .option('--name <name>', 'their display name', '')
      .option('--role <role>', 'user | viewer | operator | billing | admin', 'user')
      .option('--project <project>', 'their project', '')
      .option('--portal <url>', 'the portal URL the link starts with', 'http://127.0.0.1:8090'),
  ).action(async (email: string, o: { name: string; role: string; project: string; portal: string }, cmd: Command) => {
    const r = await ctx
      .accounting(cmd)
      .account<accountingV1.ClaimLinkCreated__Output>('CreateClaimLink', { kind: 'invite', email, name: o.name || email, role: o.role, project: o.project });
    printLink(ctx, cmd, o.portal, r, { account_id: r.accountId });
  });
  withJson(
    user
      .command('key-link <email>')
      .description("a one-time link that hands a person a new key in their project (the key's secret is sealed with the link's token, which is never stored)")
      .requiredOption('--name <name>', "the key's name")
      .option('--project <project>', "the key's project (default the person's)", '')
      .option('--portal <url>', 'the portal URL the link starts with', 'http://127.0.0.1:8090'),
  ).action(async (email: string, o: { name: string; project: string; portal: string }, cmd: Command) => {
    const r = await ctx
      .accounting(cmd)
      .account<accountingV1.ClaimLinkCreated__Output>('CreateClaimLink', { kind: 'key', account: email, keyName: o.name, project: o.project });
    printLink(ctx, cmd, o.portal, r, { key_id: r.keyId });
  });
}
