import { LlmgwError } from '@llmgw/errors';
import { API, type RequestContext } from './context';

/**
 * Stage 2, parse: the request body as JSON, checked against the API's
 * schema (libs/contracts). Unknown fields are kept and passed through.
 */
export function parse(c: RequestContext, body: Buffer | undefined): void {
  if (!body || body.length === 0) throw new LlmgwError('LLMGW_ERR_REQUEST_INVALID', 'the request body is empty; send a JSON object');
  c.buf = body;
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
  c.body = json as Record<string, any>;
}
