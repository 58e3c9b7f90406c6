import { normaliseUpstreamError } from './proxy';

describe('normaliseUpstreamError', () => {
  it.each([
    [400, '{"error":{"message":"bad temp","type":"BadRequestError","param":"temperature"}}', 'LLMGW_ERR_REQUEST_INVALID', 'bad temp', 'temperature'],
    [422, '{"detail":"field required"}', 'LLMGW_ERR_REQUEST_INVALID', 'field required', null],
    [404, '{"message":"The model `x` does not exist."}', 'LLMGW_ERR_MODEL_NOT_FOUND', 'The model `x` does not exist.', null],
    [500, 'Internal Server Error', 'LLMGW_ERR_UPSTREAM_ERROR', 'Internal Server Error', null],
    [504, '', 'LLMGW_ERR_UPSTREAM_TIMEOUT', 'upstream returned HTTP 504', null],
  ])('%i %s', (status, body, code, message, param) => {
    const e = normaliseUpstreamError(status, body);
    expect(e.code).toBe(code);
    expect(e.message).toBe(message);
    expect(e.param ?? null).toBe(param);
  });
});
