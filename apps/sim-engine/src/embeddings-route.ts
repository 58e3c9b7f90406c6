import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SimEngineConfig } from '@llmgw/config';
import { EmbeddingRequest } from '@llmgw/contracts';
import type { SimEngine } from './engine';
import { fnv1a, mulberry32 } from './rng';
import { fail, parseJson, readBody, sendJson } from './http-io';

/** POST /v1/embeddings: deterministic unit vectors seeded by the input text. */
export function embeddingsHandler(
  cfg: SimEngineConfig,
  engine: SimEngine,
  checkModel: (model: string) => void,
  maybeFail: () => void,
): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  async function embeddings(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = parseJson(await readBody(req, cfg.bodyLimitBytes), EmbeddingRequest);
    checkModel(body.model);
    // A string, a list of strings, one token-id list, or a list of token-id lists.
    const input = body.input;
    const inputs: string[] =
      typeof input === 'string'
        ? [input]
        : input.length > 0 && input.every((x) => typeof x === 'number')
          ? [input.join(',')]
          : (input as Array<string | number[]>).map((x) => (typeof x === 'string' ? x : x.join(',')));
    if (inputs.length === 0) throw fail('LLMGW_ERR_REQUEST_INVALID', 'input must not be empty', 'input');
    const dim = Math.min(body.dimensions ?? cfg.embeddingDim, cfg.embeddingDim);
    let promptTokens = 0;
    const data = inputs.map((text, index) => {
      const n = Math.ceil(text.length / 4);
      if (n > cfg.maxModelLen)
        throw fail(
          'LLMGW_ERR_CONTEXT_LENGTH_EXCEEDED',
          `This model's maximum context length is ${cfg.maxModelLen} tokens. However, you requested ${n} tokens in the input.`,
          'input',
        );
      promptTokens += n;
      const rand = mulberry32(fnv1a(text, cfg.seed >>> 0));
      const v = new Float32Array(dim);
      let norm = 0;
      for (let i = 0; i < dim; i++) {
        v[i] = rand() * 2 - 1;
        norm += v[i] * v[i];
      }
      norm = Math.sqrt(norm) || 1;
      for (let i = 0; i < dim; i++) v[i] /= norm;
      const embedding = body.encoding_format === 'base64' ? Buffer.from(v.buffer).toString('base64') : Array.from(v);
      return { object: 'embedding' as const, index, embedding };
    });
    maybeFail();
    engine.counters.promptTokens += promptTokens;
    sendJson(res, 200, { object: 'list', data, model: body.model, usage: { prompt_tokens: promptTokens, total_tokens: promptTokens } });
  }
  return embeddings;
}
