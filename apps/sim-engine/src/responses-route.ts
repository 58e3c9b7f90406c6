import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SimEngineConfig } from '@llmgw/config';
import { ResponsesRequest, type ResponseObject, type ResponsesUsage } from '@llmgw/contracts';
import type { SeqSink, SeqUsage } from './engine';
import type { PromptTokenizer } from './prompt-tokens';
import { renderChat } from './tokens';
import { SSE_HEADERS, fail, parseJson, readBody, responsesMessages, responsesUsageOf, sendJson } from './http-io';

/** What the /v1/responses handler borrows from the server it is mounted on. */
export interface ResponsesDeps {
  cfg: SimEngineConfig;
  tokenizer: PromptTokenizer;
  checkModel: (model: string) => void;
  checkLength: (promptTokens: number, maxTokens: number | undefined, what: 'messages' | 'prompt') => void;
  maybeFail: () => void;
  nextId: (prefix: string) => string;
  budget: (maxTokens: number | undefined, promptTokens: number) => { max: number; reason: 'stop' | 'length' };
  generate: (res: ServerResponse, job: { tokens: number[]; max: number; reason: 'stop' | 'length'; prompt: string }, sink: SeqSink) => void;
  whole: (text: string, done: (text: string, finishReason: 'stop' | 'length', usage: SeqUsage) => void) => SeqSink;
}

export function responsesHandler(deps: ResponsesDeps): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const { cfg, tokenizer, checkModel, checkLength, maybeFail, nextId, budget, generate, whole } = deps;
  /** POST /v1/responses as vLLM answers it: one message item; streamed as `event:`/`data:` pairs ending in response.completed (no [DONE]). */
  async function responses(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = parseJson(await readBody(req, cfg.bodyLimitBytes), ResponsesRequest);
    checkModel(body.model);
    const messages = responsesMessages(body);
    if (messages.length === 0) throw fail('LLMGW_ERR_REQUEST_INVALID', 'input must contain at least one message', 'input');
    const maxTokens = body.max_output_tokens ?? undefined;
    const prompt = renderChat(messages);
    const tokens = tokenizer.chat(messages);
    checkLength(tokens.length, maxTokens, 'messages');
    maybeFail();
    const id = nextId('resp');
    const msgId = nextId('msg');
    const createdAt = Math.floor(Date.now() / 1000);
    const { max, reason } = budget(maxTokens, tokens.length);
    const model = body.model;
    const responseObject = (status: ResponseObject['status'], text: string | undefined, usage: ResponsesUsage | null, incomplete: boolean): ResponseObject => ({
      id,
      object: 'response',
      created_at: createdAt,
      status,
      model,
      instructions: body.instructions ?? null,
      max_output_tokens: body.max_output_tokens ?? null,
      output:
        text === undefined
          ? []
          : [{ type: 'message', id: msgId, status: 'completed', role: 'assistant', content: [{ type: 'output_text', text, annotations: [], logprobs: [] }] }],
      incomplete_details: incomplete ? { reason: 'max_output_tokens' } : null,
      parallel_tool_calls: true,
      temperature: body.temperature ?? 1,
      top_p: body.top_p ?? 1,
      tool_choice: body.tool_choice ?? 'auto',
      tools: body.tools ?? [],
      usage,
    });
    if (body.stream) {
      let seqNo = 0;
      const ev = (type: string, data: Record<string, unknown>) => `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seqNo++, ...data })}\n\n`;
      const item = { output_index: 0, item_id: msgId, content_index: 0 };
      let text = '';
      res.writeHead(200, SSE_HEADERS);
      res.write(
        ev('response.created', { response: responseObject('in_progress', undefined, null, false) }) +
          ev('response.in_progress', { response: responseObject('in_progress', undefined, null, false) }) +
          ev('response.output_item.added', { output_index: 0, item: { type: 'message', id: msgId, status: 'in_progress', role: 'assistant', content: [] } }) +
          ev('response.content_part.added', { ...item, part: { type: 'output_text', text: '', annotations: [], logprobs: [] } }),
      );
      generate(
        res,
        { tokens, max, reason, prompt },
        {
          tokens(texts) {
            let out = '';
            for (const t of texts) {
              text += t;
              out += ev('response.output_text.delta', { ...item, delta: t, logprobs: [] });
            }
            if (out && !res.destroyed) res.write(out);
          },
          finish(fr, usage) {
            const part = { type: 'output_text', text, annotations: [] };
            const incomplete = fr === 'length';
            const out =
              ev('response.output_text.done', { ...item, text, logprobs: [] }) +
              ev('response.content_part.done', { ...item, part }) +
              ev('response.output_item.done', {
                output_index: 0,
                item: { type: 'message', id: msgId, status: 'completed', role: 'assistant', content: [part] },
              }) +
              ev(incomplete ? 'response.incomplete' : 'response.completed', {
                response: responseObject(incomplete ? 'incomplete' : 'completed', text, responsesUsageOf(usage), incomplete),
              });
            if (!res.destroyed) res.end(out);
          },
        },
      );
      return;
    }
    generate(
      res,
      { tokens, max, reason, prompt },
      whole('', (text, fr, usage) => {
        const incomplete = fr === 'length';
        sendJson(res, 200, responseObject(incomplete ? 'incomplete' : 'completed', text, responsesUsageOf(usage), incomplete));
      }),
    );
  }
  return responses;
}
