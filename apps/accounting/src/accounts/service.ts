import type { accountingV1 } from '@llmgw/contracts';
import { LlmgwError } from '@llmgw/errors';
import { callerActor, unary, type UnaryLogger } from '@llmgw/grpc';
import { toKey, withinDeadline } from '../service';
import { checkRole, type AccountRow, type AccountStore } from './store';

export const toAccount = (a: AccountRow): accountingV1.Account => ({
  id: a.id,
  email: a.email,
  name: a.name,
  status: a.status,
  role: a.role,
  projectId: a.project_id ?? '',
  createdAtMs: Number(a.created_at),
});

const DEFAULT_LINK_TTL_MS = 7 * 86_400_000;

/** The Accounts service (docs/portal.md): portal and `llmgw ctl user` calls onto the AccountStore. */
export function accountsHandlers(d: { accounts: AccountStore; log: UnaryLogger; dbCallTimeoutMs?: number }): accountingV1.AccountsHandlers {
  const s = d.accounts;
  const h = <Req, Res>(fn: (req: Req, actor: string) => Promise<Res>) =>
    unary<Req, Res>({ log: d.log, handler: (req, ctx) => withinDeadline(ctx, d.dbCallTimeoutMs ?? 16_000, () => fn(req, callerActor(ctx.call as never))) });
  const me = async (token: string) => (await s.session(token)).account;
  return {
    Signup: h(async (r: accountingV1.SignupRequest__Output) => toAccount(await s.signup(r.email, r.name, r.password))),
    SignIn: h(async (r: accountingV1.SignInRequest__Output) => {
      const out = await s.signIn(r.email, r.password, r.address || 'unknown', r.previousToken || undefined);
      return { token: out.token, account: toAccount(out.account), expiresAtMs: out.expiresAt };
    }),
    GetSession: h(async (r: accountingV1.SessionRequest__Output) => {
      const out = await s.session(r.token);
      return { account: toAccount(out.account), expiresAtMs: out.expiresAt };
    }),
    SignOut: h(async (r: accountingV1.SessionRequest__Output) => {
      await s.signOut(r.token);
      return {};
    }),
    ChangePassword: h(async (r: accountingV1.ChangePasswordRequest__Output) => {
      const a = await me(r.token);
      await s.changePassword(a.id, r.current, r.next, r.token);
      return toAccount(a);
    }),
    ListAccounts: h(async () => ({ accounts: (await s.list()).map(toAccount) })),
    UpdateAccount: h(async (r: accountingV1.UpdateAccountRequest__Output, actor) => {
      switch (r.action) {
        case 'approve':
          return { account: toAccount(await s.approve(actor, r.ref, r.project || undefined)), password: '' };
        case 'suspend':
          return { account: toAccount(await s.suspend(actor, r.ref)), password: '' };
        case 'reinstate':
          return { account: toAccount(await s.reinstate(actor, r.ref)), password: '' };
        case 'role':
          return { account: toAccount(await s.setRole(actor, r.ref, r.role)), password: '' };
        case 'project':
          return { account: toAccount(await s.setProject(actor, r.ref, r.project)), password: '' };
        case 'reset_password': {
          const out = await s.resetPassword(actor, r.ref);
          return { account: toAccount(out.account), password: out.password };
        }
        default:
          throw new LlmgwError('LLMGW_ERR_INVALID_ARGUMENT', 'action must be approve, suspend, reinstate, role, project or reset_password', {
            param: 'action',
          });
      }
    }),
    IssueKey: h(async (r: accountingV1.IssueKeyRequest__Output) => {
      const { row, secret } = await s.issueKey(await me(r.token), r.name, r.expiresAtMs || undefined);
      return { key: toKey(row), secret };
    }),
    ListMyKeys: h(async (r: accountingV1.SessionRequest__Output) => ({ keys: (await s.keysOf((await me(r.token)).id)).map(toKey) })),
    RevokeMyKey: h(async (r: accountingV1.RevokeMyKeyRequest__Output) => toKey(await s.revokeKeyOf(await me(r.token), r.ref))),
    CreateClaimLink: h(async (r: accountingV1.CreateClaimLinkRequest__Output, actor) => {
      const ttlMs = r.ttlMs || DEFAULT_LINK_TTL_MS;
      const out =
        r.kind === 'key'
          ? await s.createClaimLink(actor, { kind: 'key', project: r.project || undefined, account: r.account || undefined, keyName: r.keyName, ttlMs })
          : r.kind === 'invite'
            ? await s.createClaimLink(actor, {
                kind: 'invite',
                email: r.email,
                name: r.name || r.email,
                role: checkRole(r.role || 'user'),
                project: r.project || undefined,
                ttlMs,
              })
            : undefined;
      if (!out) throw new LlmgwError('LLMGW_ERR_INVALID_ARGUMENT', 'kind must be key or invite', { param: 'kind' });
      return { token: out.token, expiresAtMs: out.expiresAt, keyId: out.keyId ?? '', accountId: out.accountId ?? '' };
    }),
    Claim: h(async (r: accountingV1.ClaimRequest__Output) => {
      if (r.peek) {
        const p = await s.peekClaim(r.token);
        return { kind: p.kind, email: p.email ?? '', keyName: p.keyName ?? '', secret: '' };
      }
      const out = await s.claim(r.token, r.password);
      return {
        kind: out.kind,
        secret: out.secret ?? '',
        key: out.key ? toKey(out.key) : undefined,
        account: out.account ? toAccount(out.account) : undefined,
        email: '',
        keyName: '',
      };
    }),
  };
}
