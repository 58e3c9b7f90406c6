import { Writable } from 'node:stream';
import { join, resolve } from 'node:path';
import { start, type SimEngineHandle, type StartOptions } from '../src/main';

/** Handles started by a spec; `closeAll` in afterEach. */
export class Engines {
  private readonly handles: SimEngineHandle[] = [];
  async start(opts: StartOptions = {}): Promise<SimEngineHandle> {
    const h = await start({ port: 0, logLevel: 'silent', logDestination: new Writable({ write: (_c, _e, cb) => cb() }), ...opts });
    this.handles.push(h);
    return h;
  }
  async closeAll(): Promise<void> {
    await Promise.all(this.handles.splice(0).map((h) => h.close()));
  }
}

/** A fetch Response whose json() is untyped (test code reads it loosely). */
export type JsonResponse = Omit<Response, 'json'> & { json(): Promise<any> };

export async function postJson(url: string, body: unknown, init: RequestInit = {}): Promise<JsonResponse> {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body), ...init });
}

/** Parsed `data:` events of an SSE body (the `[DONE]` marker as the string). */
export function sseEvents(text: string): Array<Record<string, any> | '[DONE]'> {
  return text
    .split('\n\n')
    .map((b) => b.trim())
    .filter((b) => b.startsWith('data: '))
    .map((b) => b.slice(6))
    .map((d) => (d === '[DONE]' ? '[DONE]' : JSON.parse(d)));
}

/** Milliseconds from sending a streaming request to its first content token. */
export async function timeToFirstToken(url: string, body: Record<string, unknown>): Promise<{ ttftMs: number; events: ReturnType<typeof sseEvents> }> {
  const t0 = performance.now();
  const res = await postJson(url, { ...body, stream: true, stream_options: { include_usage: true } });
  const reader = res.body!.getReader();
  const dec = new TextDecoder();
  let text = '';
  let ttftMs = -1;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    text += dec.decode(value, { stream: true });
    if (ttftMs < 0 && /"(content|text)":"[^"]/.test(text)) ttftMs = performance.now() - t0;
  }
  return { ttftMs, events: sseEvents(text) };
}

export async function scrape(url: string): Promise<string> {
  return (await fetch(`${url}/metrics`)).text();
}

/** Value of a series (labels ignored) from exposition text. */
export function metricValue(text: string, name: string): number | undefined {
  const re = new RegExp(`^${name.replace(/[:]/g, '\\:')}(?:\\{[^}]*\\})? (\\S+)$`, 'm');
  const m = re.exec(text);
  return m ? Number(m[1]) : undefined;
}

/** The repository root and its fixtures/ tree (captures with provenance in fixtures/README.md). */
export const REPO_ROOT = join(__dirname, '../../..');
export const FIXTURES = resolve(REPO_ROOT, 'fixtures');
