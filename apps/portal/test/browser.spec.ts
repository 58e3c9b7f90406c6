import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePortRange, waitUntil } from '@llmgw/testing';
import { chromium, type Browser, type Page } from 'playwright-core';

// A person's whole way through the portal in the machine's real Chromium (docs/portal.md), against a real
// `llmgw up`: sign up, approval from the CLI, sign in, a claim link (working once), /chat streaming, usage;
// an operator draining a node with the audit log naming them; a viewer refused by the server.
// LLMGW_PORTAL_SCREENSHOTS=<dir> also saves each page at 1280×800 (docs/portal/*.png).
const ROOT = join(__dirname, '../../..');
const LLMGW = join(ROOT, 'bin/llmgw.cjs');
const SHOTS = process.env.LLMGW_PORTAL_SCREENSHOTS;
const ENV = { ...process.env, FORCE_COLOR: '0', LLMGW_QUIET_BUILD: '1' };

describe('the portal in a browser', () => {
  const dir = mkdtempSync(join(tmpdir(), 'llmgw-portal-'));
  let up: ChildProcess;
  let out = '';
  let browser: Browser;
  let page: Page;
  let portal = '';
  let adminPassword = '';

  const ctl = (...args: string[]) => {
    const r = spawnSync(process.execPath, [LLMGW, 'ctl', '--config', join(dir, '.llmgw/ctl.yaml'), ...args], { cwd: dir, encoding: 'utf8', env: ENV });
    if (r.status !== 0) throw new Error(`llmgw ctl ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  const shot = async (name: string) => {
    if (SHOTS) await page.screenshot({ path: join(SHOTS, `${name}.png`) });
  };
  const signIn = async (email: string, password: string) => {
    await page.goto(`${portal}/signin`);
    await page.fill('input[name=email]', email);
    await page.fill('input[name=password]', password);
    await page.click('form[action="/signin"] button[type=submit]');
  };
  const signOut = async () => {
    await page.click('form[action="/signout"] button');
    await page.waitForURL(`${portal}/`);
  };

  // Its own timeout: room for the 180 s wait for `llmgw up` below plus Chromium's launch (the 120 s default cut it short).
  beforeAll(async () => {
    mkdirSync(join(dir, '.llmgw'));
    const [low, high] = await freePortRange(100);
    up = spawn(
      process.execPath,
      [
        LLMGW,
        'up',
        '--port',
        '0',
        '--admin-port',
        '0',
        '--accounting-port',
        '0',
        '--admission-port',
        '0',
        '--control-port',
        '0',
        '--engine-ports',
        `${low}-${high}`,
        '--data-dir',
        join(dir, '.llmgw'),
        '--decode-tps',
        '200',
      ],
      { cwd: ROOT, detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: ENV },
    );
    up.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    up.stderr!.on('data', (c: Buffer) => (out += c.toString()));
    await waitUntil(() => /Stop with Ctrl-C/.test(out) || up.exitCode !== null, 'llmgw up to start', { timeoutMs: 180_000, everyMs: 100 }).catch((e) => {
      throw new Error(`${(e as Error).message}\n${out}`);
    });
    portal = /portal +(http:\/\/\S+)/.exec(out)![1]!;
    adminPassword = /portal admin admin@llmgw\.local \/ (\S+)/.exec(out)![1]!;
    browser = await chromium.launch({
      executablePath: process.env.LLMGW_CHROMIUM ?? '/usr/bin/chromium',
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    });
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  }, 240_000);
  afterAll(async () => {
    await browser?.close();
    if (up?.pid && up.exitCode === null) {
      process.kill(-up.pid, 'SIGINT');
      await new Promise((r) => up.once('exit', r));
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('a person signs up, is approved from the CLI, signs in, claims a key once, chats and sees the request in their usage', async () => {
    const csp: string[] = [];
    page.on('response', (r) => {
      if (r.url().startsWith(portal) && r.request().resourceType() === 'document') csp.push(r.headers()['content-security-policy'] ?? '');
    });
    await page.goto(portal);
    expect(await page.textContent('h1')).toContain('Welcome');
    await shot('landing');
    await page.click('a[href="/signup"]');
    await page.fill('input[name=name]', 'Ann Example');
    await page.fill('input[name=email]', 'ann@example.com');
    await page.fill('input[name=password]', 'ann-password-1');
    await shot('signup');
    await page.click('form[action="/signup"] button');
    expect(await page.textContent('main')).toContain('An operator approves');
    await signIn('ann@example.com', 'ann-password-1');
    expect(await page.textContent('.error')).toContain('waits for an operator');

    expect(ctl('user', 'approve', 'ann@example.com', '--project', 'demo')).toContain('active');
    await signIn('ann@example.com', 'ann-password-1');
    await page.waitForURL(`${portal}/me`);

    // A key handed over by a link: shown once in the browser, the link refused the second time.
    const keyLink = JSON.parse(ctl('user', 'key-link', 'ann@example.com', '--name', 'ann-laptop', '--portal', portal, '--json')).link as string;
    await page.goto(keyLink);
    await shot('claim');
    await page.click('#claim-peek button');
    expect(await page.textContent('main')).toContain('ann-laptop');
    await page.click('form[action="/claim"] button');
    expect(await page.textContent('#key-secret')).toMatch(/^sk-llmgw-[0-9A-Za-z]{30,}$/);
    await page.goto('about:blank');
    await page.goto(keyLink);
    await page.click('#claim-peek button');
    expect(await page.textContent('main')).toContain('used already or has expired');

    const link = JSON.parse(ctl('user', 'invite', 'cy@example.com', '--name', 'Cy', '--role', 'viewer', '--project', 'demo', '--portal', portal, '--json'))
      .link as string;
    // A key link, made by an operator for Ann: claimed once in the browser, refused the second time.
    const ctx2 = await browser.newContext();
    const p2 = await ctx2.newPage();
    await p2.goto(link);
    await p2.click('#claim-peek button');
    expect(await p2.textContent('main')).toContain('cy@example.com');
    await p2.fill('input[name=password]', 'cy-password-1');
    await p2.click('form[action="/claim"] button');
    expect(await p2.textContent('h1')).toContain('Your account is ready');
    await p2.goto('about:blank');
    await p2.goto(link);
    await p2.click('#claim-peek button');
    expect(await p2.textContent('main')).toContain('used already or has expired');
    await ctx2.close();

    await page.goto(`${portal}/chat`);
    await page.fill('#chat-input', 'Hello there, portal');
    await shot('chat');
    await page.click('#chat-send');
    await page.waitForSelector('.msg.assistant[data-streaming="false"]', { timeout: 60_000 });
    const reply = await page.textContent('.msg.assistant');
    expect(reply!.length).toBeGreaterThan(0);
    expect(await page.textContent('#chat-decisions')).toMatch(/x-llmgw-/);
    await shot('chat');
    // The request lands in the ledger (batched), then in Ann's usage.
    await waitUntil(
      async () => {
        await page.goto(`${portal}/me`);
        return Number(await page.textContent('#my-requests')) >= 1;
      },
      'the chat request in the usage',
      { timeoutMs: 30_000, everyMs: 500 },
    );
    await shot('me');
    const html = await page.content();
    expect(html).not.toMatch(/sk-llmgw-[0-9A-Za-z]{20,}/);
    expect(await page.textContent('main')).toContain('ann-laptop');
    expect(csp.every((h) => h.includes("script-src 'self'") && !h.includes('unsafe-inline'))).toBe(true);
    await signOut();
  });

  it('an operator drains a node from the admin UI and the audit log names them; a viewer is refused by the server', async () => {
    await signIn('admin@llmgw.local', adminPassword);
    await page.waitForURL(`${portal}/admin`);
    await page.goto(`${portal}/admin/people`);
    await shot('admin-people');
    await page.goto(`${portal}/admin`);
    await shot('admin-fleet');
    page.once('dialog', (d) => void d.accept());
    await page.click('tr[data-node="up-gpu-b"] form:has(input[value=drain]) button');
    await page.waitForURL(`${portal}/admin`);
    expect(await page.textContent('tr[data-node="up-gpu-b"]')).toMatch(/draining|cordoned/);
    await page.goto(`${portal}/admin/audit`);
    const audit = await page.textContent('#audit');
    expect(audit).toMatch(/admin@llmgw\.local[^\n]*node\.drain|node\.drain/);
    expect(await page.locator('#audit tr', { hasText: 'node.drain' }).first().textContent()).toContain('admin@llmgw.local');
    await shot('admin-audit');
    for (const [path, name] of [
      ['/admin/traffic', 'admin-traffic'],
      ['/admin/models', 'admin-models'],
      ['/admin/usage', 'admin-usage'],
      ['/admin/settings', 'admin-settings'],
    ] as const) {
      await page.goto(`${portal}${path}`);
      await shot(name);
    }
    await signOut();

    // Cy is a viewer: the page shows no buttons, and the server refuses the action anyway.
    await signIn('cy@example.com', 'cy-password-1');
    await page.goto(`${portal}/admin`);
    expect(await page.locator('tr[data-node="up-gpu-a"] button').count()).toBe(0);
    // A direct HTTP call with the viewer's own session and a valid CSRF token: refused all the same.
    const csrf = (await page.getAttribute('meta[name="csrf-token"]', 'content'))!;
    const r = await page.request.post(`${portal}/admin/nodes`, { form: { _csrf: csrf, node: 'up-gpu-a', action: 'drain' }, maxRedirects: 0 });
    const refused = r.status();
    expect(await r.text()).toContain('needs the operator role');
    expect(refused).toBe(403);
    const nodes = JSON.parse(ctl('nodes', '--json')) as Array<{ info: { nodeId: string }; state: string }>;
    expect(nodes.find((n) => n.info.nodeId === 'up-gpu-a')!.state).toBe('NODE_STATE_READY');
  });
});
