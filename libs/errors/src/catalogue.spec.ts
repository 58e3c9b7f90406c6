import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ERRORS, LlmgwError, isLlmgwError, renderErrorsMarkdown, toHttpError, codeForUpstreamStatus, type ErrorCode } from './index';

describe('error catalogue', () => {
  it('docs/errors.md is rendered from the catalogue', () => {
    const doc = readFileSync(join(__dirname, '../../../docs/errors.md'), 'utf8');
    expect(doc).toBe(renderErrorsMarkdown());
  });

  it.each(Object.keys(ERRORS) as ErrorCode[])('%s has a valid status pair', (code) => {
    const s = ERRORS[code];
    expect(code).toMatch(/^LLMGW_ERR_[A-Z0-9_]+$/);
    expect(s.http).toBeGreaterThanOrEqual(400);
    expect(s.http).toBeLessThan(600);
    expect(s.grpc).toBeGreaterThan(0);
    expect(s.description.length).toBeGreaterThan(10);
  });

  it('maps an LlmgwError to OpenAI error JSON with Retry-After', () => {
    const out = toHttpError(new LlmgwError('LLMGW_ERR_ADMISSION_QUEUE_FULL', 'queue for band bronze is full', { retryAfterSeconds: 2.2 }));
    expect(out.status).toBe(503);
    expect(out.headers['retry-after']).toBe('3');
    expect(out.body).toEqual({
      error: { message: 'queue for band bronze is full', type: 'server_error', param: null, code: 'queue_full', llmgw_code: 'LLMGW_ERR_ADMISSION_QUEUE_FULL' },
    });
  });

  it('hides unexpected errors behind LLMGW_ERR_INTERNAL', () => {
    const out = toHttpError(new Error('secret detail'));
    expect(out.status).toBe(500);
    expect(out.body.error.message).toBe('internal error');
    expect(isLlmgwError(new Error('x'))).toBe(false);
  });

  it.each([
    [400, 'LLMGW_ERR_REQUEST_INVALID'],
    [404, 'LLMGW_ERR_MODEL_NOT_FOUND'],
    [429, 'LLMGW_ERR_UPSTREAM_OVERLOADED'],
    [503, 'LLMGW_ERR_UPSTREAM_OVERLOADED'],
    [500, 'LLMGW_ERR_UPSTREAM_ERROR'],
  ])('upstream %d → %s', (status, code) => {
    expect(codeForUpstreamStatus(status)).toBe(code);
  });
});
