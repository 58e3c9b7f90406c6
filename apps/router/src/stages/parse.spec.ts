import { parse } from './parse';
import { contextOf } from './testing';

describe('stage: parse', () => {
  it.each([
    ['no body', undefined, 'LLMGW_ERR_REQUEST_INVALID', null],
    ['an empty body', '', 'LLMGW_ERR_REQUEST_INVALID', null],
    ['not JSON', '{"model":', 'LLMGW_ERR_REQUEST_INVALID_JSON', null],
    ['a JSON array', '[]', 'LLMGW_ERR_REQUEST_INVALID', null],
    ['no messages', '{"model":"m"}', 'LLMGW_ERR_REQUEST_INVALID', 'messages'],
    ['a bad max_tokens', '{"model":"m","messages":[{"role":"user","content":"x"}],"max_tokens":"many"}', 'LLMGW_ERR_REQUEST_INVALID', 'max_tokens'],
  ])('refuses %s', (_what, body, code, param) => {
    const c = contextOf('chat');
    expect(() => parse(c, body === undefined ? undefined : Buffer.from(body))).toThrow(expect.objectContaining(param === null ? { code } : { code, param }));
  });

  it('keeps the client bytes and unknown fields as sent', () => {
    const raw = Buffer.from('{"model":"m","messages":[{"role":"user","content":"x"}],"vendor_knob":{"a":1}}');
    const c = contextOf('chat');
    parse(c, raw);
    expect(c.buf).toBe(raw);
    expect(c.body.vendor_knob).toEqual({ a: 1 });
  });

  it('checks each API against its own schema', () => {
    const c = contextOf('embeddings');
    expect(() => parse(c, Buffer.from('{"model":"m","messages":[{"role":"user","content":"x"}]}'))).toThrow(expect.objectContaining({ param: 'input' }));
  });
});
