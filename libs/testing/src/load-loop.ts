import http from 'node:http';

/** One request of a closed-loop load, as the client saw it. */
export interface LoadOutcome {
  /** The x-request-id it was sent with. */
  id: string;
  startedAt: number;
  endedAt: number;
  /** HTTP status, or the error's message when the request failed without one. */
  status: number | string;
  ok: boolean;
  /** `x-llmgw-router` of the answer: which router behind the balancer served it. */
  router?: string;
}

/**
 * One chat completion on its own connection (no keep-alive reuse race on the client side), with
 * `x-request-id: id`; resolves with the status, the body and `x-llmgw-router`.
 */
export function chatOnce(
  baseUrl: string,
  id: string,
  o: { model: string; key?: string; maxTokens?: number },
): Promise<{ status: number; body: string; router?: string }> {
  const body = JSON.stringify({ model: o.model, messages: [{ role: 'user', content: `hello ${id}` }], max_tokens: o.maxTokens ?? 20 });
  const headers: Record<string, string | number> = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'x-request-id': id };
  if (o.key) headers.authorization = `Bearer ${o.key}`;
  return new Promise((resolve, reject) => {
    const req = http.request(`${baseUrl}/v1/chat/completions`, { method: 'POST', agent: false, headers }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(parts).toString(), router: res.headers['x-llmgw-router'] as string | undefined }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * `workers` clients sending chat completions back to back (each with a fresh request id) until
 * stop(); `outcomes` fills as answers come. A 200 carrying a chat.completion is ok.
 */
export function chatLoad(baseUrl: string, workers: number, o: { model: string; key?: string; maxTokens?: number }) {
  const outcomes: LoadOutcome[] = [];
  let running = true;
  let n = 0;
  const loops = Array.from({ length: workers }, async () => {
    while (running) {
      const id = `load-${process.pid}-${++n}-${Date.now()}`;
      const startedAt = performance.now();
      try {
        const r = await chatOnce(baseUrl, id, o);
        outcomes.push({
          id,
          startedAt,
          endedAt: performance.now(),
          status: r.status,
          ok: r.status === 200 && r.body.includes('chat.completion'),
          router: r.router,
        });
      } catch (e) {
        outcomes.push({ id, startedAt, endedAt: performance.now(), status: (e as Error).message, ok: false });
      }
    }
  });
  return {
    outcomes,
    async stop(): Promise<LoadOutcome[]> {
      running = false;
      await Promise.all(loops);
      return outcomes;
    },
  };
}

/** Outcome counts by status and router ("200@router1: 40, …"), for failure messages. */
export function loadSummary(outcomes: LoadOutcome[]): string {
  const n = new Map<string, number>();
  for (const o of outcomes) n.set(`${o.status}@${o.router ?? '-'}`, (n.get(`${o.status}@${o.router ?? '-'}`) ?? 0) + 1);
  return [...n].map(([k, v]) => `${k}: ${v}`).join(', ');
}
