import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { fail, parseJson, readBody } from './http-io';

/**
 * LoRA adapters as llama.cpp's server applies them (docs/sim-engine.md):
 * every adapter is loaded at start (`--lora path`, ids in that order), each
 * with a global scale (1, or 0 with `--lora-init-without-apply`) that
 * `POST /lora-adapters` sets and `GET /lora-adapters` lists. A request may
 * carry `lora: [{ id, scale }]`: for that request the adapters it names get
 * its scale and every other adapter 0. What a request applied changes the
 * text it generates (as a real adapter changes the output), and is counted
 * per adapter at `GET /sim/lora-requests`.
 */
const ScaleList = z.array(z.object({ id: z.number().int().min(0), scale: z.number().min(-100).max(100) }).strict()).max(1024);

export class LlamaLoras {
  private readonly scales: number[];
  /** Requests that ran with each adapter applied (scale ≠ 0), by id. */
  readonly applied = new Map<number, number>();
  private readonly tagOf = new WeakMap<ServerResponse, string>();

  constructor(
    private readonly paths: readonly string[],
    initWithoutApply: boolean,
  ) {
    this.scales = paths.map(() => (initWithoutApply ? 0 : 1));
  }

  private checked(list: z.infer<typeof ScaleList>, param: string): Map<number, number> {
    const out = new Map<number, number>();
    for (const { id, scale } of list) {
      if (id >= this.paths.length) throw fail('LLMGW_ERR_REQUEST_INVALID', `invalid adapter id ${id}: ${this.paths.length} adapter(s) loaded`, param);
      out.set(id, scale);
    }
    return out;
  }

  /** Validates a request's `lora` field and records what the request applies (read back by `tag`). */
  apply(body: object, res: ServerResponse): void {
    const raw = (body as { lora?: unknown }).lora;
    let scales = this.scales;
    if (raw !== undefined && raw !== null) {
      const parsed = ScaleList.safeParse(raw);
      if (!parsed.success) throw fail('LLMGW_ERR_REQUEST_INVALID', 'lora must be a list of {"id": integer, "scale": number}', 'lora');
      const named = this.checked(parsed.data, 'lora');
      scales = this.paths.map((_p, i) => named.get(i) ?? 0);
    }
    const on = scales.map((s, i) => [i, s] as const).filter(([, s]) => s !== 0);
    for (const [i] of on) this.applied.set(i, (this.applied.get(i) ?? 0) + 1);
    if (on.length) this.tagOf.set(res, on.map(([i, s]) => `\u0000lora${i}@${s}`).join(''));
  }

  /** What to mix into the text seed of the request answered on `res` ('' = no adapter applied). */
  tag(res: ServerResponse): string {
    return this.tagOf.get(res) ?? '';
  }

  routes(bodyLimit: number) {
    const json = (res: ServerResponse, v: unknown) => void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(v));
    return {
      '/lora-adapters': {
        methods: ['GET', 'POST'],
        handle: async (req: IncomingMessage, res: ServerResponse) => {
          if (req.method === 'POST') {
            const named = this.checked(parseJson(await readBody(req, bodyLimit), ScaleList), 'id');
            this.paths.forEach((_p, i) => (this.scales[i] = named.get(i) ?? 0));
            return json(res, { success: true });
          }
          json(
            res,
            this.paths.map((path, id) => ({ id, path, scale: this.scales[id] })),
          );
        },
      },
      '/sim/lora-requests': {
        methods: ['GET'],
        handle: (_q: IncomingMessage, res: ServerResponse) => json(res, { applied: Object.fromEntries(this.applied) }),
      },
    };
  }
}
