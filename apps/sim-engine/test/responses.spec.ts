import OpenAI from 'openai';
import { Engines } from './helpers';

// The Responses API as vLLM serves it, checked through the official client's own parser.
const engines = new Engines();
afterEach(() => engines.closeAll());

async function client() {
  const h = await engines.start({ models: ['llama'], decodeTps: 0, prefillTps: 0, seed: 7 });
  return { h, openai: new OpenAI({ baseURL: `${h.url}/v1`, apiKey: 'unused', maxRetries: 0 }) };
}

describe('POST /v1/responses', () => {
  it('answers one message item with input/output token usage', async () => {
    const { openai } = await client();
    const r = await openai.responses.create({ model: 'llama', instructions: 'be brief', input: 'hello there', max_output_tokens: 5 });
    expect(r.object).toBe('response');
    expect(r.status).toBe('incomplete');
    expect(r.incomplete_details).toEqual({ reason: 'max_output_tokens' });
    expect(r.output_text.split(' ')).toHaveLength(5);
    expect(r.usage).toMatchObject({ output_tokens: 5, input_tokens: expect.any(Number), input_tokens_details: { cached_tokens: 0 } });
    expect(r.usage!.total_tokens).toBe(r.usage!.input_tokens + 5);
  });

  it('takes message items as input and completes without a limit', async () => {
    const { openai } = await client();
    const r = await openai.responses.create({ model: 'llama', input: [{ role: 'user', content: [{ type: 'input_text', text: 'hi' }] }] });
    expect(r.status).toBe('completed');
    expect(r.output[0]).toMatchObject({ type: 'message', role: 'assistant', status: 'completed' });
  });

  it('streams the lifecycle events in order, deltas adding up to the final text, usage in response.completed', async () => {
    const { openai } = await client();
    const stream = await openai.responses.create({ model: 'llama', input: 'tell me', stream: true });
    const types: string[] = [];
    const seqs: number[] = [];
    let text = '';
    let done: OpenAI.Responses.Response | undefined;
    for await (const ev of stream) {
      types.push(ev.type);
      seqs.push(ev.sequence_number);
      if (ev.type === 'response.output_text.delta') text += ev.delta;
      if (ev.type === 'response.completed') done = ev.response;
    }
    expect(types.slice(0, 4)).toEqual(['response.created', 'response.in_progress', 'response.output_item.added', 'response.content_part.added']);
    expect(types.slice(-4)).toEqual(['response.output_text.done', 'response.content_part.done', 'response.output_item.done', 'response.completed']);
    expect(seqs).toEqual(seqs.map((_s, i) => i));
    // (output_text is a convenience the SDK adds to non-streamed results only.)
    const item = done?.output[0];
    expect(item?.type === 'message' && item.content[0].type === 'output_text' ? item.content[0].text : undefined).toBe(text);
    expect(done?.usage?.output_tokens).toBe(text.split(' ').length);
  });

  it('refuses an unknown model and a missing input in OpenAI error JSON', async () => {
    const { openai } = await client();
    await expect(openai.responses.create({ model: 'nope', input: 'x' })).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    await expect(openai.responses.create({ model: 'llama' })).rejects.toBeInstanceOf(OpenAI.BadRequestError);
  });
});
