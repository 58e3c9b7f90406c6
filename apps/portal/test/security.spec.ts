import { AccountingClient } from '@llmgw/accounting-rpc';
import type { accountingV1 } from '@llmgw/contracts';
import { createLogger } from '@llmgw/observability';
import { spawnRole, type SpawnedRole } from '@llmgw/testing';
import { Writable } from 'node:stream';
import { CSP } from '../src/app';
import { start, type RunningPortal } from '../src/main';

// The portal's security properties over plain HTTP (docs/portal.md, "Security"), against a real
// `llmgw accounting` process: CSRF on every state-changing route, session fixation, revoked and
// suspended sessions, sign-in rate limiting, no secret in pages, URLs or log lines, the CSP.
describe('portal security', () => {
  let acc: SpawnedRole;
  let portal: RunningPortal;
  let admin: AccountingClient;
  let portalLog = '';
  const secrets: string[] = [];

  /** A tiny cookie-keeping client, as a browser would be. */
  class Browser {
    jar = new Map<string, string>();
    async req(method: string, path: string, form?: Record<string, string>, extra: Record<string, string> = {}) {
      const headers: Record<string, string> = { cookie: [...this.jar].map(([k, v]) => `${k}=${v}`).join('; '), ...extra };
      if (form) headers['content-type'] = 'application/x-www-form-urlencoded';
      const r = await fetch(portal.url + path, { method, headers, body: form ? new URLSearchParams(form).toString() : undefined, redirect: 'manual' });
      for (const c of r.headers.getSetCookie()) {
        const [kv] = c.split(';');
        const [k, v] = kv!.split('=');
        if (v) this.jar.set(k!, v);
        else this.jar.delete(k!);
      }
      return { status: r.status, headers: r.headers, text: await r.text() };
    }
    async csrf(path = '/signin'): Promise<string> {
      const page = await this.req('GET', path);
      return /name="csrf-token" content="([^"]+)"/.exec(page.text)![1]!;
    }
    async signIn(email: string, password: string) {
      return this.req('POST', '/signin', { _csrf: await this.csrf(), email, password });
    }
  }

  const person = async (email: string, role = 'user') => {
    const password = `${email}-pw-1234`;
    secrets.push(password);
    const l = await admin.account<accountingV1.ClaimLinkCreated__Output>('CreateClaimLink', { kind: 'invite', email, name: email, role, project: 'p' });
    secrets.push(l.token);
    await admin.account('Claim', { token: l.token, password });
    return password;
  };

  beforeAll(async () => {
    acc = await spawnRole('accounting', ['--port', '0', '--admin-port', '0', '--database-url', 'pglite:memory', '--log-level', 'debug']);
    admin = new AccountingClient({ address: acc.url, actor: 'test-operator' });
    const org = await admin.call<accountingV1.Org__Output>('CreateOrg', { name: 'o' });
    const team = await admin.call<accountingV1.Team__Output>('CreateTeam', { org: org.id, name: 't' });
    await admin.call('CreateProject', { team: team.id, name: 'p' });
    const log = createLogger({
      service: 'portal-test',
      level: 'debug',
      destination: new Writable({ write: (c, _e, cb) => ((portalLog += c.toString()), cb()) }),
    });
    portal = await start({
      config: { listen: '127.0.0.1:0', admin_listen: '127.0.0.1:0', accounting: { address: acc.url }, router_url: 'http://127.0.0.1:9', log_level: 'debug' },
      log,
    });
  });
  afterAll(async () => {
    await portal?.close();
    admin?.close();
    await acc?.stop();
  });

  it('refuses every state-changing request without a valid CSRF token, with the CSP on every page', async () => {
    const b = new Browser();
    const password = await person('csrf@example.com', 'admin');
    await b.signIn('csrf@example.com', password);
    const posts = [
      '/signup',
      '/signin',
      '/signout',
      '/claim',
      '/me/keys',
      '/me/keys/revoke',
      '/me/password',
      '/chat/stream',
      '/admin/nodes',
      '/admin/people',
      '/admin/links',
    ];
    for (const path of posts) {
      const none = await b.req('POST', path, { email: 'x@y.z', password: 'whatever-123', name: 'n', action: 'suspend', account: 'csrf@example.com' });
      expect([path, none.status]).toEqual([path, 403]);
      const wrong = await b.req('POST', path, { _csrf: 'forged', action: 'suspend', account: 'csrf@example.com' });
      expect([path, wrong.status]).toEqual([path, 403]);
    }
    // Still signed in and active: none of those went through.
    expect((await b.req('GET', '/me')).status).toBe(200);
    for (const path of ['/', '/signin', '/signup', '/me', '/admin/people', '/admin/audit', '/claim']) {
      const r = await b.req('GET', path);
      expect(r.headers.get('content-security-policy')).toBe(CSP);
      expect(r.headers.get('x-frame-options')).toBe('DENY');
      expect(r.text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    }
  });

  it('gives a new session id on sign-in and ends the one the browser held (session fixation)', async () => {
    const attacker = new Browser();
    await attacker.signIn('fix-a@example.com', await person('fix-a@example.com'));
    const planted = attacker.jar.get('llmgw_session')!;
    expect(planted).toBeTruthy();
    const victim = new Browser();
    victim.jar.set('llmgw_session', planted);
    const r = await victim.signIn('fix-b@example.com', await person('fix-b@example.com'));
    expect(r.status).toBe(303);
    const fresh = victim.jar.get('llmgw_session')!;
    expect(fresh).not.toBe(planted);
    const cookie = r.headers.getSetCookie().find((c) => c.startsWith('llmgw_session='))!;
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    // The planted session is over: the attacker's browser is signed out.
    expect((await attacker.req('GET', '/me')).status).toBe(303);
    secrets.push(planted, fresh);
  });

  it('refuses a revoked session and a suspended account on the next request', async () => {
    const b = new Browser();
    await b.signIn('rev@example.com', await person('rev@example.com'));
    secrets.push(b.jar.get('llmgw_session')!);
    expect((await b.req('GET', '/me')).status).toBe(200);
    await admin.account('UpdateAccount', { ref: 'rev@example.com', action: 'suspend' });
    const after = await b.req('GET', '/me');
    expect(after.status).toBe(303);
    expect(after.headers.get('location')).toBe('/signin');
    // Signed out from the page: the session is ended server-side, a copy of the cookie is useless.
    const c = new Browser();
    await c.signIn('out@example.com', await person('out@example.com'));
    const copy = c.jar.get('llmgw_session')!;
    secrets.push(copy);
    await c.req('POST', '/signout', { _csrf: await c.csrf('/me') });
    const thief = new Browser();
    thief.jar.set('llmgw_session', copy);
    expect((await thief.req('GET', '/me')).status).toBe(303);
  });

  it('rate-limits failed sign-ins per account with 429 and Retry-After', async () => {
    const password = await person('rl@example.com');
    const b = new Browser();
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await b.signIn('rl@example.com', 'not-the-password')).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
    const right = await b.signIn('rl@example.com', password);
    expect(right.status).toBe(429);
    expect(Number(right.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(right.text).toMatch(/too many failed sign-ins/);
  });

  it('keeps every secret out of pages, URLs and log lines', async () => {
    const b = new Browser();
    const password = await person('keys@example.com');
    await b.signIn('keys@example.com', password);
    const issued = await b.req('POST', '/me/keys', { _csrf: await b.csrf('/me'), name: 'laptop' });
    const secret = /id="key-secret"[^>]*>(sk-llmgw-[0-9A-Za-z]{30,})</.exec(issued.text)![1]!;
    expect(issued.headers.get('cache-control')).toBe('no-store');
    secrets.push(secret, b.jar.get('llmgw_session')!);
    // Shown once, on that response only: the profile lists the key by prefix.
    const me = await b.req('GET', '/me');
    expect(me.text).toContain('laptop');
    expect(me.text).not.toContain(secret);
    expect(me.text).not.toContain(b.jar.get('llmgw_session')!);
    const accLog = acc.output().join('\n');
    for (const s of secrets) {
      expect(portalLog).not.toContain(s);
      expect(accLog).not.toContain(s);
    }
    // The logs were captured (a scan of nothing would pass anyway).
    expect(accLog).toContain('listening');
    expect(portalLog).toContain('listening');
  });
});
