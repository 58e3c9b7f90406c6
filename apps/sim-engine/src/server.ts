import { timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { ChatCompletionRequest, CompletionRequest, chatMaxTokens, wantsStreamUsage } from '@llmgw/contracts';
import type { SimEngineConfig } from '@llmgw/config';
import { LlmgwError } from '@llmgw/errors';
import type { Logger } from '@llmgw/observability';
import type { SeqSink, SeqUsage, SimEngine } from './engine';
import { LoraSlots } from './lora';
import { LlamaLoras } from './llamacpp-lora';
import { loraRoutes } from './lora-routes';
import { renderMetrics } from './metrics';
import { fnv1a, mulberry32 } from './rng';
import { promptTokenizer } from './prompt-tokens';
import { renderChat } from './tokens';
import { responsesHandler } from './responses-route';
import { embeddingsHandler } from './embeddings-route';
import { SSE_HEADERS, fail, parseJson, readBody, sendError, sendJson, usageOf } from './http-io';

/**
 * The HTTP surface on node:http directly: the request path is a handful of
 * branches and one JSON.parse, which keeps per-request overhead far below a
 * framework's (the router benchmark drives 1000 req/s through three of these).
 */

export function createSimServer(cfg: SimEngineConfig, engine: SimEngine, log: Logger): Server {
  const tokenizer = promptTokenizer(cfg.tokenizer);
  const models = new Set(cfg.models);
  const created = Math.floor(Date.now() / 1000);
  const failRand = mulberry32(cfg.seed ^ 0x5eed);
  let idCounter = 0;
  const nextId = (prefix: string): string => `${prefix}-${(cfg.seed >>> 0).toString(16)}${(++idCounter).toString(16).padStart(8, '0')}`;

  // vLLM's --enable-lora alone gives one slot; --lora-modules are registered at start. SGLang's --lora-paths
  // are too, in --max-loras-per-batch slots.
  const sglangLoras = cfg.loraPaths.length > 0;
  const lora = new LoraSlots(sglangLoras ? cfg.maxLorasPerBatch : cfg.maxLoras || (cfg.enableLora || cfg.loraModules.length ? 1 : 0), cfg.loraLoadMs);
  for (const m of [...cfg.loraModules, ...cfg.loraPaths]) lora.register(m.name, m.path);
  const llama = cfg.lora.length ? new LlamaLoras(cfg.lora, cfg.loraInitWithoutApply) : undefined;
  /** The adapter a generating request names (its `model` as vLLM, its `lora_path` as SGLang). */
  const adapterOf = new WeakMap<ServerResponse, string>();
  const checkModel = (model: string, param = 'model', res?: ServerResponse): void => {
    if (res && !sglangLoras && lora.has(model)) return void adapterOf.set(res, model);
    if (!models.has(model)) throw fail('LLMGW_ERR_MODEL_NOT_FOUND', `The model \`${model}\` does not exist.`, param);
  };
  /** SGLang: a request for the served model names its adapter in `lora_path`, one of --lora-paths (vLLM ignores the field). */
  const checkLoraPath = (body: object, res: ServerResponse): void => {
    const p = (body as { lora_path?: unknown }).lora_path;
    if (p === undefined || p === null || (!sglangLoras && cfg.dialect !== 'sglang')) return;
    if (typeof p !== 'string' || !lora.has(p)) {
      const names = lora.list().map((a) => a.name);
      const have = sglangLoras ? `: ${names.join(', ')}` : ' (LoRA is off: start with --lora-paths)';
      throw fail('LLMGW_ERR_REQUEST_INVALID', `lora_path ${JSON.stringify(p)} is not an adapter this engine loaded${have}`, 'lora_path');
    }
    adapterOf.set(res, p);
  };

  const maybeFail = (): void => {
    if (cfg.failRate > 0 && failRand() < cfg.failRate) throw fail('LLMGW_ERR_INTERNAL', 'simulated engine failure (--fail-rate)');
  };

  const checkLength = (promptTokens: number, maxTokens: number | undefined, what: 'messages' | 'prompt'): void => {
    const requested = promptTokens + (maxTokens ?? 0);
    if (promptTokens >= cfg.maxModelLen || requested > cfg.maxModelLen) {
      throw fail(
        'LLMGW_ERR_CONTEXT_LENGTH_EXCEEDED',
        `This model's maximum context length is ${cfg.maxModelLen} tokens. However, you requested ${requested} tokens ` +
          `(${promptTokens} in the ${what}, ${maxTokens ?? 0} in the completion). Please reduce the length of the ${what} or completion.`,
        what,
      );
    }
    if (engine.tooLargeForCache(promptTokens)) {
      throw fail(
        'LLMGW_ERR_CONTEXT_LENGTH_EXCEEDED',
        `the prompt (${promptTokens} tokens) needs more KV blocks than the engine has (${cfg.numGpuBlocks})`,
        what,
      );
    }
  };

  /** Generation length and finish reason for a request. */
  const budget = (maxTokens: number | undefined, promptTokens: number): { max: number; reason: 'stop' | 'length' } => {
    if (maxTokens !== undefined) return { max: maxTokens, reason: 'length' };
    return { max: Math.max(1, Math.min(cfg.maxTokensDefault, cfg.maxModelLen - promptTokens)), reason: 'stop' };
  };

  /**
   * vLLM's request `priority` (an integer, default 0). As in vLLM, a
   * non-default priority on an engine not started with
   * `--scheduling-policy priority` is a 400.
   */
  const priorityOf = (body: object): number => {
    const p = (body as { priority?: unknown }).priority;
    if (p !== undefined && p !== null) {
      if (typeof p !== 'number' || !Number.isSafeInteger(p)) throw fail('LLMGW_ERR_REQUEST_INVALID', 'priority must be an integer', 'priority');
      if (p !== 0 && engine.policy !== 'priority') {
        throw fail('LLMGW_ERR_REQUEST_INVALID', `Got priority ${p} but priority scheduling is not enabled (--scheduling-policy priority).`, 'priority');
      }
    }
    const label = p === undefined || p === null ? 'none' : String(p);
    engine.counters.byPriority.set(label, (engine.counters.byPriority.get(label) ?? 0) + 1);
    return typeof p === 'number' ? p : 0;
  };

  const textSeed = (prompt: string, reqSeed: number | null | undefined): number => fnv1a(prompt, (cfg.seed * 2654435761 + (reqSeed ?? 0)) >>> 0);

  /** One generation: submitted to the engine, and dropped from it when the client goes away. */
  function generate(
    res: ServerResponse,
    job: { tokens: number[]; max: number; reason: 'stop' | 'length'; stop?: string[]; prompt: string; seed?: number | null; priority?: number },
    sink: SeqSink,
  ): void {
    const rid = res.req?.headers['x-request-id'];
    const requestId = typeof rid === 'string' && rid !== '' ? rid.slice(0, 256) : undefined;
    const submit = (s: SeqSink) => {
      const seq = engine.submit({
        promptTokens: job.tokens,
        maxTokens: job.max,
        limitReason: job.reason,
        stop: job.stop,
        textSeed: textSeed(job.prompt + (llama?.tag(res) ?? ''), job.seed),
        priority: job.priority,
        requestId,
        sink: s,
      });
      res.on('close', () => engine.abort(seq));
    };
    const adapter = adapterOf.get(res);
    if (!adapter) return submit(sink);
    // A LoRA request runs once its adapter holds a slot, and gives the slot back when it ends (or the client leaves).
    let held = true;
    const release = () => {
      if (held) {
        held = false;
        lora.release(adapter);
      }
    };
    void lora.acquire(adapter).then(() => {
      if (res.destroyed) return release();
      res.on('close', release);
      submit({
        tokens: (t, f) => sink.tokens(t, f),
        finish: (fr, u) => {
          release();
          sink.finish(fr, u);
        },
      });
    });
  }

  /** A sink for a non-streamed answer: the whole text, after `text`, handed to `done` at the end. */
  function whole(text: string, done: (text: string, finishReason: 'stop' | 'length', usage: SeqUsage) => void): SeqSink {
    return {
      tokens(texts) {
        for (const t of texts) text += t;
      },
      finish: (fr, usage) => done(text, fr, usage),
    };
  }

  async function chat(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = parseJson(await readBody(req, cfg.bodyLimitBytes), ChatCompletionRequest);
    checkModel(body.model, 'model', res);
    checkLoraPath(body, res);
    if (body.n != null && body.n !== 1) throw fail('LLMGW_ERR_REQUEST_INVALID', 'sim-engine supports only n=1', 'n');
    const priority = priorityOf(body);
    const maxTokens = chatMaxTokens(body);
    if (maxTokens === 0)
      throw fail('LLMGW_ERR_REQUEST_INVALID', 'max_tokens must be at least 1', body.max_completion_tokens != null ? 'max_completion_tokens' : 'max_tokens');
    const prompt = renderChat(body.messages);
    const tokens = tokenizer.chat(body.messages);
    checkLength(tokens.length, maxTokens, 'messages');
    llama?.apply(body, res);
    maybeFail();
    const id = nextId('chatcmpl');
    const createdAt = Math.floor(Date.now() / 1000);
    const { max, reason } = budget(maxTokens, tokens.length);
    const stop = body.stop == null ? undefined : typeof body.stop === 'string' ? [body.stop] : body.stop;
    const model = body.model;
    if (body.stream) {
      const withUsage = wantsStreamUsage(body);
      const usageField = withUsage ? ',"usage":null' : '';
      const head = `data: {"id":"${id}","object":"chat.completion.chunk","created":${createdAt},"model":${JSON.stringify(model)},"choices":[`;
      res.writeHead(200, SSE_HEADERS);
      res.flushHeaders();
      generate(
        res,
        { tokens, max, reason, stop, prompt, seed: body.seed, priority },
        {
          tokens(texts, first) {
            let out = first ? `${head}{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]${usageField}}\n\n` : '';
            for (const t of texts) out += `${head}{"index":0,"delta":{"content":${JSON.stringify(t)}},"logprobs":null,"finish_reason":null}]${usageField}}\n\n`;
            if (out && !res.destroyed) res.write(out);
          },
          finish(fr, usage) {
            let out = `${head}{"index":0,"delta":{},"logprobs":null,"finish_reason":"${fr}"}]${usageField}}\n\n`;
            if (withUsage) out += `${head}],"usage":${JSON.stringify(usageOf(usage))}}\n\n`;
            if (!res.destroyed) res.end(out + 'data: [DONE]\n\n');
          },
        },
      );
      return;
    }
    generate(
      res,
      { tokens, max, reason, stop, prompt, seed: body.seed, priority },
      whole('', (text, fr, usage) => {
        sendJson(res, 200, {
          id,
          object: 'chat.completion',
          created: createdAt,
          model,
          choices: [{ index: 0, message: { role: 'assistant', content: text, refusal: null }, logprobs: null, finish_reason: fr }],
          usage: usageOf(usage),
          system_fingerprint: null,
        });
      }),
    );
  }

  async function completions(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = parseJson(await readBody(req, cfg.bodyLimitBytes), CompletionRequest);
    checkModel(body.model, 'model', res);
    checkLoraPath(body, res);
    if (body.n != null && body.n !== 1) throw fail('LLMGW_ERR_REQUEST_INVALID', 'sim-engine supports only n=1', 'n');
    if (body.max_tokens === 0) throw fail('LLMGW_ERR_REQUEST_INVALID', 'max_tokens must be at least 1', 'max_tokens');
    const priority = priorityOf(body);
    let prompt: string;
    let tokens: number[];
    const p = body.prompt;
    if (typeof p === 'string') {
      prompt = p;
      tokens = tokenizer.text(p);
    } else if (p.length === 1 && typeof p[0] === 'string') {
      prompt = p[0];
      tokens = tokenizer.text(prompt);
    } else if (p.every((x) => typeof x === 'number')) {
      tokens = p as number[];
      prompt = tokens.join(',');
    } else if (p.length === 1 && Array.isArray(p[0])) {
      tokens = p[0];
      prompt = tokens.join(',');
    } else {
      throw fail('LLMGW_ERR_REQUEST_INVALID', 'sim-engine supports one prompt per request', 'prompt');
    }
    if (tokens.length === 0) throw fail('LLMGW_ERR_REQUEST_INVALID', 'prompt must not be empty', 'prompt');
    const maxTokens = body.max_tokens ?? undefined;
    checkLength(tokens.length, maxTokens, 'prompt');
    llama?.apply(body, res);
    maybeFail();
    const id = nextId('cmpl');
    const createdAt = Math.floor(Date.now() / 1000);
    const { max, reason } = budget(maxTokens, tokens.length);
    const stop = body.stop == null ? undefined : typeof body.stop === 'string' ? [body.stop] : body.stop;
    const model = body.model;
    const echo = body.echo === true ? prompt : '';
    if (body.stream) {
      const withUsage = wantsStreamUsage(body);
      const usageField = withUsage ? ',"usage":null' : '';
      const head = `data: {"id":"${id}","object":"text_completion","created":${createdAt},"choices":[`;
      const tail = `],"model":${JSON.stringify(model)}${usageField}}\n\n`;
      res.writeHead(200, SSE_HEADERS);
      res.flushHeaders();
      let held: string | undefined = echo || undefined;
      generate(
        res,
        { tokens, max, reason, stop, prompt, seed: body.seed, priority },
        {
          tokens(texts) {
            // The last text is held back so the finish_reason rides on the final token, as in the captures.
            let out = '';
            for (const t of texts) {
              if (held !== undefined) out += `${head}{"text":${JSON.stringify(held)},"index":0,"logprobs":null,"finish_reason":null}${tail}`;
              held = t;
            }
            if (out && !res.destroyed) res.write(out);
          },
          finish(fr, usage) {
            let out = `${head}{"text":${JSON.stringify(held ?? '')},"index":0,"logprobs":null,"finish_reason":"${fr}"}${tail}`;
            if (withUsage)
              out += `data: {"id":"${id}","object":"text_completion","created":${createdAt},"model":${JSON.stringify(model)},"usage":${JSON.stringify(usageOf(usage))},"choices":[]}\n\n`;
            if (!res.destroyed) res.end(out + 'data: [DONE]\n\n');
          },
        },
      );
      return;
    }
    generate(
      res,
      { tokens, max, reason, stop, prompt, seed: body.seed, priority },
      whole(echo, (text, fr, usage) => {
        sendJson(res, 200, {
          id,
          object: 'text_completion',
          created: createdAt,
          model,
          choices: [{ index: 0, text, logprobs: null, finish_reason: fr }],
          usage: usageOf(usage),
        });
      }),
    );
  }

  const responses = responsesHandler({ cfg, tokenizer, checkModel, checkLength, maybeFail, nextId, budget, generate, whole });
  const embeddings = embeddingsHandler(cfg, engine, checkModel, maybeFail);

  function modelsList(res: ServerResponse): void {
    sendJson(res, 200, {
      object: 'list',
      data: cfg.models
        .map((id) => ({
          id,
          object: 'model',
          created,
          owned_by: 'vllm',
          root: cfg.models[0],
          parent: null as string | null,
          max_model_len: cfg.maxModelLen,
          permission: [],
        }))
        .concat(
          lora.list().map((a) => ({
            id: a.name,
            object: 'model',
            created,
            owned_by: 'vllm',
            root: a.path,
            parent: cfg.models[0],
            max_model_len: cfg.maxModelLen,
            permission: [],
          })),
        ),
    });
  }

  const ROUTES: Record<string, { methods: string[]; handle: (req: IncomingMessage, res: ServerResponse) => void | Promise<void> }> = {
    '/v1/chat/completions': { methods: ['POST'], handle: chat },
    '/v1/completions': { methods: ['POST'], handle: completions },
    '/v1/embeddings': { methods: ['POST'], handle: embeddings },
    '/v1/responses': { methods: ['POST'], handle: responses },
    '/v1/models': { methods: ['GET'], handle: (_q, r) => modelsList(r) },
    '/health': { methods: ['GET'], handle: (_q, r) => void r.writeHead(200, { 'content-length': 0 }).end() },
    '/metrics': {
      methods: ['GET'],
      handle: (_q, r) => {
        const text = renderMetrics(cfg.dialect, cfg.models[0], engine.gauges(), engine.counters, lora.maxLoras > 0 ? lora.info() : undefined);
        r.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8', 'content-length': Buffer.byteLength(text) });
        r.end(text);
      },
    },
    ...loraRoutes(lora, cfg.bodyLimitBytes),
    ...(llama ? llama.routes(cfg.bodyLimitBytes) : {}),
    '/sim/priorities': { methods: ['GET'], handle: (_q, r) => sendJson(r, 200, { by_priority: Object.fromEntries(engine.counters.byPriority) }) },
    // The engine's view of recent requests that carried an x-request-id (?prefix= selects by id).
    '/sim/requests': {
      methods: ['GET'],
      handle: (q, r) => sendJson(r, 200, { requests: engine.counters.requests(new URL(q.url ?? '/', 'http://sim').searchParams.get('prefix') ?? '') }),
    },
    '/reset_prefix_cache': {
      methods: ['POST'],
      handle: (_q, r) => {
        engine.resetPrefixCache();
        r.writeHead(200, { 'content-length': 0 }).end();
      },
    },
  };

  // vLLM's --api-key: /v1/* needs the key; /health, /metrics and the rest stay open.
  const wanted = cfg.apiKey ? Buffer.from(`Bearer ${cfg.apiKey}`) : undefined;
  const authorized = (req: IncomingMessage): boolean => {
    const got = Buffer.from(String(req.headers.authorization ?? ''));
    return got.length === wanted!.length && timingSafeEqual(got, wanted!);
  };

  return createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q >= 0 ? url.slice(0, q) : url;
    const route = ROUTES[path];
    try {
      if (wanted && (path === '/v1' || path.startsWith('/v1/')) && !authorized(req)) {
        req.resume();
        throw fail(
          req.headers.authorization ? 'LLMGW_ERR_AUTH_INVALID' : 'LLMGW_ERR_AUTH_MISSING',
          req.headers.authorization ? 'Incorrect API key provided.' : 'This engine requires an API key (Authorization: Bearer <key>).',
        );
      }
      if (!route) throw fail('LLMGW_ERR_ROUTE_NOT_FOUND', `no route ${req.method} ${path}`);
      if (!route.methods.includes(req.method ?? '')) throw fail('LLMGW_ERR_METHOD_NOT_ALLOWED', `${req.method} is not allowed on ${path}`);
      const r = route.handle(req, res);
      if (r) {
        r.catch((e: unknown) => {
          if (!(e instanceof LlmgwError)) log.error({ err: e, path }, 'request failed');
          sendError(res, e);
        });
      }
    } catch (e) {
      if (!(e instanceof LlmgwError)) log.error({ err: e, path }, 'request failed');
      sendError(res, e);
    }
  });
}
