import type { RouterState } from './context';
import { parse } from './parse';
import { contextOf } from './testing';

// parse reads only cfg.json_max_depth from the router state.
const state = { cfg: { json_max_depth: 8 } } as unknown as RouterState;

describe('stage: parse', () => {
  it.each([
    ['no body', undefined, 'LLMGW_ERR_REQUEST_INVALID', null],
    ['an empty body', '', 'LLMGW_ERR_REQUEST_INVALID', null],
    ['not JSON', '{"model":', 'LLMGW_ERR_REQUEST_INVALID_JSON', null],
    ['a JSON array', '[]', 'LLMGW_ERR_REQUEST_INVALID', null],
    ['no messages', '{"model":"m"}', 'LLMGW_ERR_REQUEST_INVALID', 'messages'],
    ['nesting deeper than json_max_depth', `{"model":"m","x":${'['.repeat(9)}${']'.repeat(9)}}`, 'LLMGW_ERR_REQUEST_INVALID_JSON', null],
    ['an unknown role', '{"model":"m","messages":[{"role":"wizard","content":"x"}]}', 'LLMGW_ERR_REQUEST_INVALID', 'messages.0.role'],
    ['a bad max_tokens', '{"model":"m","messages":[{"role":"user","content":"x"}],"max_tokens":"many"}', 'LLMGW_ERR_REQUEST_INVALID', 'max_tokens'],
    ["llama.cpp's adapter field", '{"model":"m","messages":[{"role":"user","content":"x"}],"lora":[{"id":0,"scale":1}]}', 'LLMGW_ERR_REQUEST_INVALID', 'lora'],
    ["SGLang's adapter field", '{"model":"m","messages":[{"role":"user","content":"x"}],"lora_path":"sql"}', 'LLMGW_ERR_REQUEST_INVALID', 'lora_path'],
  ])('refuses %s', (_what, body, code, param) => {
    const c = contextOf('chat');
    expect(() => parse(state, c, body === undefined ? undefined : Buffer.from(body))).toThrow(
      expect.objectContaining(param === null ? { code } : { code, param }),
    );
  });

  it('keeps the client bytes and unknown fields as sent', () => {
    const raw = Buffer.from('{"model":"m","messages":[{"role":"user","content":"x"}],"vendor_knob":{"a":1}}');
    const c = contextOf('chat');
    parse(state, c, raw);
    expect(c.buf).toBe(raw);
    expect(c.body.vendor_knob).toEqual({ a: 1 });
  });

  it('counts brackets inside strings as text, not nesting', () => {
    const c = contextOf('chat');
    parse(state, c, Buffer.from(`{"model":"m","messages":[{"role":"user","content":"${'[{'.repeat(50)} \\" ]]"}]}`));
    expect(c.body.model).toBe('m');
  });

  it('checks each API against its own schema', () => {
    const c = contextOf('embeddings');
    expect(() => parse(state, c, Buffer.from('{"model":"m","messages":[{"role":"user","content":"x"}]}'))).toThrow(expect.objectContaining({ param: 'input' }));
  });
});
