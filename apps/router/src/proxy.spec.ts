import { normaliseUpstreamError } from './proxy';

describe('normaliseUpstreamError', () => {
  it.each([
    [400, '{"error":{"message":"bad temp","type":"BadRequestError","param":"temperature"}}', 'LLMGW_ERR_REQUEST_INVALID', 'bad temp', 'temperature'],
    [422, '{"detail":"field required"}', 'LLMGW_ERR_REQUEST_INVALID', 'field required', null],
    [404, '{"message":"The model `x` does not exist."}', 'LLMGW_ERR_MODEL_NOT_FOUND', 'The model `x` does not exist.', null],
    [500, 'Internal Server Error', 'LLMGW_ERR_UPSTREAM_ERROR', 'Internal Server Error', null],
    [504, '', 'LLMGW_ERR_UPSTREAM_TIMEOUT', 'upstream returned HTTP 504', null],
    // vLLM: the HTTP status as `code`, the meaning only in the message.
    [400, '{"error":{"message":"This model\'s maximum context length is 2048 tokens. However, you requested 4000 tokens.","type":"BadRequestError","param":null,"code":400}}', 'LLMGW_ERR_CONTEXT_LENGTH_EXCEEDED', "This model's maximum context length is 2048 tokens. However, you requested 4000 tokens.", null],
    // OpenAI and sim-engine: the code itself.
    [400, '{"error":{"message":"too long","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}', 'LLMGW_ERR_CONTEXT_LENGTH_EXCEEDED', 'too long', 'messages'],
  ])('%i %s', (status, body, code, message, param) => {
    const e = normaliseUpstreamError(status, body);
    expect(e.code).toBe(code);
    expect(e.message).toBe(message);
    expect(e.param ?? null).toBe(param);
  });
});
