import { LlmgwError } from '@llmgw/errors';
import type { ApiKeyRow } from '@llmgw/db';
import type { Kysely } from 'kysely';
import { randomBytes } from 'node:crypto';
import type { TenancyStore } from '../tenancy-store';
import { hashPassword, newToken, openWith, sealWith, tokenHash, verifyPassword } from './crypto';
import { AttemptLimiter, type SigninAttempts } from './rate-limit';

export const ROLES = ['user', 'viewer', 'operator', 'billing', 'admin'] as const;
export type Role = (typeof ROLES)[number];
export type AccountStatus = 'invited' | 'pending' | 'active' | 'suspended';
export type SignupMode = 'open' | 'invite' | 'closed';

export interface AccountRow {
  id: string;
  email: string;
  name: string;
  password_hash: string;
  status: AccountStatus;
  role: Role;
  project_id: string | null;
  created_at: number;
  updated_at: number;
}

export interface AccountsOptions {
  signup: SignupMode;
  /** A session unused this long ends (ms). */
  sessionIdleMs: number;
  /** A session ends this long after sign-in whatever its use (ms). */
  sessionAbsoluteMs: number;
  /** Failed sign-ins allowed per account / per address within the window. */
  attempts: { perAccount: number; perAddress: number; windowMs: number };
}

export const DEFAULT_ACCOUNTS_OPTIONS: AccountsOptions = {
  signup: 'open',
  sessionIdleMs: 30 * 60_000,
  sessionAbsoluteMs: 12 * 3_600_000,
  attempts: { perAccount: 5, perAddress: 20, windowMs: 15 * 60_000 },
};

const bad = (msg: string, param?: string) => new LlmgwError('LLMGW_ERR_INVALID_ARGUMENT', msg, param ? { param } : undefined);
const denied = (msg: string) => new LlmgwError('LLMGW_ERR_PERMISSION_DENIED', msg);
const unauth = (msg: string) => new LlmgwError('LLMGW_ERR_SESSION_INVALID', msg);

function checkEmail(email: string): string {
  const e = email.trim().toLowerCase();
  if (!/^[^\s@]{1,64}@[^\s@]{1,190}$/.test(e)) throw bad('email must look like name@domain', 'email');
  return e;
}
function checkPassword(p: string): void {
  if (p.length < 10 || p.length > 200) throw bad('password must be 10 to 200 characters', 'password');
}
function checkPersonName(n: string): string {
  const v = n.trim();
  if (!v || v.length > 100 || /[\u0000-\u001f<>]/.test(v)) throw bad('name must be 1 to 100 characters, without < > or control characters', 'name');
  return v;
}
export function checkRole(r: string): Role {
  if (!(ROLES as readonly string[]).includes(r)) throw bad(`role must be one of ${ROLES.join(', ')}`, 'role');
  return r as Role;
}

const newAccountId = () => 'acct_' + randomBytes(9).toString('base64url').replace(/[-_]/g, 'x');

/**
 * People, sessions and claim links in the accounting database
 * (docs/portal.md). Every change is written to the audit log with its actor;
 * keys are minted and revoked through the TenancyStore, so a revocation
 * reaches every router's key cache the usual way (docs/accounting.md).
 */
export class AccountStore {
  readonly attempts: SigninAttempts;

  constructor(
    private readonly db: Kysely<any>,
    private readonly tenancy: TenancyStore,
    readonly o: AccountsOptions = DEFAULT_ACCOUNTS_OPTIONS,
    private readonly now: () => number = Date.now,
    attempts?: SigninAttempts,
  ) {
    this.attempts = attempts ?? new AttemptLimiter(o.attempts, now);
  }

  private audit(actor: string, action: string, id: string, details: object = {}) {
    return this.tenancy.appendAudit(actor, action, 'account', id, details);
  }

  async account(ref: string): Promise<AccountRow> {
    const r = ref.trim().toLowerCase();
    const row = (await this.db
      .selectFrom('accounts')
      .selectAll()
      .where((eb) => eb.or([eb('id', '=', ref.trim()), eb('email', '=', r)]))
      .executeTakeFirst()) as AccountRow | undefined;
    if (!row) throw new LlmgwError('LLMGW_ERR_NOT_FOUND', `account "${ref.slice(0, 100)}" not found`);
    return row;
  }

  list(): Promise<AccountRow[]> {
    return this.db.selectFrom('accounts').selectAll().orderBy('created_at').orderBy('id').execute() as Promise<AccountRow[]>;
  }

  private async insert(
    actor: string,
    a: { email: string; name: string; passwordHash: string; status: AccountStatus; role: Role; projectId: string | null },
  ): Promise<AccountRow> {
    const at = this.now();
    const row: AccountRow = {
      id: newAccountId(),
      email: a.email,
      name: a.name,
      password_hash: a.passwordHash,
      status: a.status,
      role: a.role,
      project_id: a.projectId,
      created_at: at,
      updated_at: at,
    };
    try {
      await this.db.insertInto('accounts').values(row).execute();
    } catch (e) {
      if (/unique|duplicate/i.test(String((e as Error).message))) throw new LlmgwError('LLMGW_ERR_ALREADY_EXISTS', `an account for ${a.email} exists already`);
      throw e;
    }
    await this.audit(actor, 'account.create', row.id, { email: row.email, status: row.status, role: row.role });
    return row;
  }

  /** Self-service sign-up: open mode only; the account waits for an operator's approval. */
  async signup(email: string, name: string, password: string): Promise<AccountRow> {
    if (this.o.signup !== 'open') throw denied(this.o.signup === 'invite' ? 'sign-up is by invitation: ask an operator for a link' : 'sign-up is closed');
    const e = checkEmail(email);
    checkPassword(password);
    return this.insert(e, {
      email: e,
      name: checkPersonName(name),
      passwordHash: await hashPassword(password),
      status: 'pending',
      role: 'user',
      projectId: null,
    });
  }

  /** An account made by an operator or at first start (active, with this password). */
  async create(actor: string, a: { email: string; name: string; password: string; role: Role; projectId?: string }): Promise<AccountRow> {
    checkPassword(a.password);
    const e = checkEmail(a.email);
    return this.insert(actor, {
      email: e,
      name: checkPersonName(a.name),
      passwordHash: await hashPassword(a.password),
      status: 'active',
      role: a.role,
      projectId: a.projectId ?? null,
    });
  }

  private async update(actor: string, action: string, a: AccountRow, set: Partial<AccountRow>, details: object = {}): Promise<AccountRow> {
    const res = { ...a, ...set, updated_at: this.now() };
    await this.db
      .updateTable('accounts')
      .set({ ...set, updated_at: res.updated_at })
      .where('id', '=', a.id)
      .execute();
    await this.audit(actor, action, a.id, { email: a.email, ...details });
    return res;
  }

  async approve(actor: string, ref: string, projectRef?: string): Promise<AccountRow> {
    const a = await this.account(ref);
    if (a.status !== 'pending') throw new LlmgwError('LLMGW_ERR_FAILED_PRECONDITION', `${a.email} is ${a.status}, not pending`);
    const projectId = projectRef ? (await this.tenancy.project(projectRef, 'project')).id : a.project_id;
    if (!projectId) throw bad('approving needs a project for the person (--project)', 'project');
    return this.update(actor, 'account.approve', a, { status: 'active', project_id: projectId }, { project: projectId });
  }

  /** Suspends a person: their sessions end and every key they issued is revoked (on every router within a second). */
  async suspend(actor: string, ref: string): Promise<AccountRow> {
    const a = await this.account(ref);
    const res = await this.update(actor, 'account.suspend', a, { status: 'suspended' });
    await this.revokeSessions(a.id);
    const keys = await this.db.selectFrom('account_keys').select('key_id').where('account_id', '=', a.id).execute();
    for (const k of keys) await this.tenancy.revokeKey(actor, k.key_id as string);
    return res;
  }

  async reinstate(actor: string, ref: string): Promise<AccountRow> {
    const a = await this.account(ref);
    if (a.status !== 'suspended') throw new LlmgwError('LLMGW_ERR_FAILED_PRECONDITION', `${a.email} is ${a.status}, not suspended`);
    return this.update(actor, 'account.reinstate', a, { status: 'active' });
  }

  async setRole(actor: string, ref: string, role: string): Promise<AccountRow> {
    const a = await this.account(ref);
    return this.update(actor, 'account.role', a, { role: checkRole(role) }, { from: a.role, to: role });
  }

  async setProject(actor: string, ref: string, projectRef: string): Promise<AccountRow> {
    const a = await this.account(ref);
    const p = await this.tenancy.project(projectRef, 'project');
    return this.update(actor, 'account.project', a, { project_id: p.id }, { project: p.id });
  }

  /** An operator's reset: a new random password (returned once), every session ended. */
  async resetPassword(actor: string, ref: string): Promise<{ account: AccountRow; password: string }> {
    const a = await this.account(ref);
    const password = randomBytes(12).toString('base64url');
    const res = await this.update(actor, 'account.password_reset', a, { password_hash: await hashPassword(password) });
    await this.revokeSessions(a.id);
    return { account: res, password };
  }

  async changePassword(accountId: string, current: string, next: string, keepToken: string): Promise<void> {
    const a = await this.account(accountId);
    if (!(await verifyPassword(current, a.password_hash))) throw denied('the current password is wrong');
    checkPassword(next);
    await this.update(a.email, 'account.password_change', a, { password_hash: await hashPassword(next) });
    await this.db
      .updateTable('sessions')
      .set({ revoked_at: this.now() })
      .where('account_id', '=', a.id)
      .where('revoked_at', 'is', null)
      .where('token_hash', '!=', tokenHash(keepToken))
      .execute();
  }

  // --- sessions ----------------------------------------------------------

  /**
   * Signs in with a fresh session token (a new id on every sign-in; `previous`,
   * the session the browser held before, is ended). Failed attempts are
   * counted per account and per address.
   */
  async signIn(email: string, password: string, address: string, previous?: string): Promise<{ token: string; account: AccountRow; expiresAt: number }> {
    const e = email.trim().toLowerCase().slice(0, 256);
    const wait = await this.attempts.retryAfter(e, address);
    if (wait > 0) throw new LlmgwError('LLMGW_ERR_SIGNIN_RATE_LIMITED', `too many failed sign-ins; try again in ${wait} s`, { retryAfterSeconds: wait });
    const a = (await this.db.selectFrom('accounts').selectAll().where('email', '=', e).executeTakeFirst()) as AccountRow | undefined;
    // The same work whether or not the account exists: no timing tells which emails have accounts.
    const ok = await verifyPassword(password, a?.password_hash ?? 'scrypt$32768$8$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
    if (!a || !ok) {
      await this.attempts.fail(e, address);
      throw unauth('wrong email or password');
    }
    if (a.status !== 'active') throw denied(a.status === 'pending' ? 'your account waits for an operator to approve it' : `your account is ${a.status}`);
    await this.attempts.succeed(e);
    if (previous) await this.signOut(previous);
    const token = newToken();
    const at = this.now();
    const expiresAt = at + this.o.sessionAbsoluteMs;
    await this.db
      .insertInto('sessions')
      .values({ token_hash: tokenHash(token), account_id: a.id, created_at: at, last_seen_at: at, expires_at: expiresAt, revoked_at: null })
      .execute();
    return { token, account: a, expiresAt };
  }

  /** The account behind a session token; UNAUTHENTICATED when it is unknown, ended, idle too long or past its absolute limit. */
  async session(token: string): Promise<{ account: AccountRow; expiresAt: number }> {
    if (!token || token.length > 100) throw unauth('no session');
    const at = this.now();
    const s = await this.db.selectFrom('sessions').selectAll().where('token_hash', '=', tokenHash(token)).executeTakeFirst();
    if (!s || s.revoked_at !== null || Number(s.expires_at) <= at || Number(s.last_seen_at) + this.o.sessionIdleMs <= at)
      throw unauth('session ended; sign in again');
    const a = await this.account(s.account_id as string);
    if (a.status !== 'active') throw unauth('session ended; sign in again');
    // Written at most every 5 s per session: the idle clock needs no finer grain.
    if (at - Number(s.last_seen_at) > 5000) await this.db.updateTable('sessions').set({ last_seen_at: at }).where('token_hash', '=', s.token_hash).execute();
    return { account: a, expiresAt: Number(s.expires_at) };
  }

  async signOut(token: string): Promise<void> {
    await this.db.updateTable('sessions').set({ revoked_at: this.now() }).where('token_hash', '=', tokenHash(token)).where('revoked_at', 'is', null).execute();
  }

  private async revokeSessions(accountId: string): Promise<void> {
    await this.db.updateTable('sessions').set({ revoked_at: this.now() }).where('account_id', '=', accountId).where('revoked_at', 'is', null).execute();
  }

  // --- a person's keys -----------------------------------------------------

  /** Mints a key in the person's project, owned by them (revoked when they are suspended). */
  async issueKey(a: AccountRow, name: string, expiresAt?: number): Promise<{ row: ApiKeyRow; secret: string }> {
    if (!a.project_id) throw new LlmgwError('LLMGW_ERR_FAILED_PRECONDITION', 'you belong to no project yet; ask an operator');
    const made = await this.tenancy.createKey(a.email, a.project_id, { name, expiresAt });
    await this.db.insertInto('account_keys').values({ key_id: made.row.id, account_id: a.id }).execute();
    return made;
  }

  async keysOf(accountId: string): Promise<ApiKeyRow[]> {
    return (await this.db
      .selectFrom('api_keys')
      .innerJoin('account_keys', 'account_keys.key_id', 'api_keys.id')
      .selectAll('api_keys')
      .where('account_keys.account_id', '=', accountId)
      .orderBy('api_keys.created_at', 'desc')
      .execute()) as ApiKeyRow[];
  }

  async revokeKeyOf(a: AccountRow, keyRef: string): Promise<ApiKeyRow> {
    const k = await this.tenancy.key(keyRef);
    const own = await this.db.selectFrom('account_keys').select('key_id').where('key_id', '=', k.id).where('account_id', '=', a.id).executeTakeFirst();
    if (!own) throw new LlmgwError('LLMGW_ERR_NOT_FOUND', `key "${keyRef.slice(0, 100)}" not found among your keys`);
    return this.tenancy.revokeKey(a.email, k.id);
  }

  // --- claim links -------------------------------------------------------

  /**
   * A one-time link. `key`: a key is minted now (in `project`, owned by
   * `account` when given) and its secret sealed with the link's token, which
   * is returned here once and never stored. `invite`: an account is made
   * for `email` (status invited); claiming it sets the password.
   */
  async createClaimLink(
    actor: string,
    l:
      | { kind: 'key'; project?: string; account?: string; keyName: string; ttlMs: number }
      | { kind: 'invite'; email: string; name: string; role: Role; project?: string; ttlMs: number },
  ): Promise<{ token: string; expiresAt: number; keyId?: string; accountId?: string }> {
    if (!(l.ttlMs >= 60_000 && l.ttlMs <= 30 * 86_400_000)) throw bad('a link lives from 1 minute to 30 days', 'ttl_ms');
    const token = newToken();
    const at = this.now();
    const expiresAt = at + l.ttlMs;
    let keyId: string | undefined;
    let accountId: string | undefined;
    let sealed: string | null = null;
    if (l.kind === 'key') {
      const owner = l.account ? await this.account(l.account) : undefined;
      const projectRef = l.project ?? owner?.project_id;
      if (!projectRef) throw bad('a key link needs a project (or a person who has one)', 'project');
      const made = await this.tenancy.createKey(actor, projectRef, { name: l.keyName });
      if (owner) await this.db.insertInto('account_keys').values({ key_id: made.row.id, account_id: owner.id }).execute();
      keyId = made.row.id;
      accountId = owner?.id;
      sealed = sealWith(token, made.secret);
    } else {
      const projectId = l.project ? (await this.tenancy.project(l.project, 'project')).id : null;
      const e = checkEmail(l.email);
      const row = await this.insert(actor, {
        email: e,
        name: checkPersonName(l.name),
        passwordHash: '!',
        status: 'invited',
        role: checkRole(l.role),
        projectId,
      });
      accountId = row.id;
    }
    await this.db
      .insertInto('claim_links')
      .values({
        token_hash: tokenHash(token),
        kind: l.kind,
        account_id: accountId ?? null,
        key_id: keyId ?? null,
        sealed,
        created_by: actor,
        created_at: at,
        expires_at: expiresAt,
        used_at: null,
      })
      .execute();
    await this.tenancy.appendAudit(actor, 'claim_link.create', l.kind === 'key' ? 'key' : 'account', (keyId ?? accountId)!, {
      kind: l.kind,
      expires_at: expiresAt,
    });
    return { token, expiresAt, keyId, accountId };
  }

  /** What a link is for, without using it (the claim page); NOT_FOUND once used or expired. */
  async peekClaim(token: string): Promise<{ kind: 'key' | 'invite'; email?: string; keyName?: string }> {
    const l = await this.db.selectFrom('claim_links').selectAll().where('token_hash', '=', tokenHash(token)).executeTakeFirst();
    if (!l || l.used_at !== null || Number(l.expires_at) <= this.now())
      throw new LlmgwError('LLMGW_ERR_NOT_FOUND', 'this link was used already or has expired');
    if (l.kind === 'key') return { kind: 'key', keyName: (await this.tenancy.key(l.key_id as string)).name };
    return { kind: 'invite', email: (await this.account(l.account_id as string)).email };
  }

  /**
   * Uses a link, once: marks it used (atomically: two claims at once, one
   * wins) and clears the sealed secret from the database. A key link returns
   * the key's secret; an invite sets `password` and activates the account.
   */
  async claim(token: string, password?: string): Promise<{ kind: 'key' | 'invite'; secret?: string; key?: ApiKeyRow; account?: AccountRow }> {
    if (!token || token.length > 100) throw new LlmgwError('LLMGW_ERR_NOT_FOUND', 'this link was used already or has expired');
    const peek = await this.peekClaim(token);
    if (peek.kind === 'invite') checkPassword(password ?? '');
    const at = this.now();
    const hash = tokenHash(token);
    const l = await this.db.transaction().execute(async (tx) => {
      const row = await tx
        .selectFrom('claim_links')
        .selectAll()
        .where('token_hash', '=', hash)
        .where('used_at', 'is', null)
        .where('expires_at', '>', at)
        .forUpdate()
        .executeTakeFirst();
      if (row) await tx.updateTable('claim_links').set({ used_at: at, sealed: null }).where('token_hash', '=', hash).execute();
      return row;
    });
    if (!l) throw new LlmgwError('LLMGW_ERR_NOT_FOUND', 'this link was used already or has expired');
    if (l.kind === 'key') {
      const key = await this.tenancy.key(l.key_id as string);
      await this.tenancy.appendAudit(`claim link of ${l.created_by as string}`, 'claim_link.claim', 'key', key.id, {});
      return { kind: 'key', key, secret: openWith(token, l.sealed as string) };
    }
    const a = await this.account(l.account_id as string);
    const account = await this.update(a.email, 'account.claim', a, { status: 'active', password_hash: await hashPassword(password!) });
    return { kind: 'invite', account };
  }
}
