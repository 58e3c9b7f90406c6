import { LlmgwError } from '@llmgw/errors';
import { jsonDepthExceeds } from '../http';
import { API, type RequestContext, type StageConfig } from './context';

/**
 * Stage 2, parse: the request body as JSON, checked against the API's
 * schema (libs/contracts: where OpenAI validates — roles, temperature,
 * top_p, n, tools, tool_choice). Unknown fields are kept and passed through.
 * Nesting deeper than `json_max_depth` is refused before JSON.parse runs.
 * The engines' own adapter fields are refused: the router sets them from
 * `model` for the engine that serves the request (docs/models.md,
 * "Adapters"), so an adapter is never applied past the key's allowlist or
 * outside its usage records.
 */
export function parse(s: { cfg: Pick<StageConfig, 'json_max_depth'> }, c: RequestContext, body: Buffer | undefined): void {
  if (!body || body.length === 0) throw new LlmgwError('LLMGW_ERR_REQUEST_INVALID', 'the request body is empty; send a JSON object');
  c.buf = body;
  if (jsonDepthExceeds(body, s.cfg.json_max_depth))
    throw new LlmgwError('LLMGW_ERR_REQUEST_INVALID_JSON', `the request body nests arrays/objects deeper than ${s.cfg.json_max_depth} levels`);
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch (e) {
    throw new LlmgwError('LLMGW_ERR_REQUEST_INVALID_JSON', `the request body is not valid JSON: ${(e as Error).message}`);
  }
  const parsed = API[c.kind].schema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const param = issue.path.map(String).join('.') || null;
    throw new LlmgwError('LLMGW_ERR_REQUEST_INVALID', param ? `${param}: ${issue.message}` : issue.message, { param });
  }
  const fields = json as Record<string, any>;
  for (const f of ENGINE_ADAPTER_FIELDS) {
    if (fields[f] != null)
      throw new LlmgwError('LLMGW_ERR_REQUEST_INVALID', `${f}: name a LoRA adapter in model ("<base>:<adapter>", or the adapter's own name) instead`, {
        param: f,
      });
  }
  c.body = fields;
}

/** llama.cpp's `lora` and SGLang's `lora_path`. */
const ENGINE_ADAPTER_FIELDS = ['lora', 'lora_path'] as const;
