import { type IncomingMessage, type ServerResponse } from 'node:http';
import { ResponsesRequest, describeIssues, type ChatMessage, type ResponsesUsage, type Usage } from '@llmgw/contracts';
import { LlmgwError, toHttpError, type ErrorCode } from '@llmgw/errors';
import type { z } from 'zod';
import type { SeqUsage } from './engine';

const JSON_HEADERS = { 'content-type': 'application/json' };
export const SSE_HEADERS = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' };

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.destroyed || res.headersSent) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { ...JSON_HEADERS, ...headers, 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export function sendError(res: ServerResponse, e: unknown): void {
  const { status, body, headers } = toHttpError(e);
  if (res.headersSent) {
    // Inside a stream an error is one `data: {"error":…}` event.
    if (!res.writableEnded) res.end(`data: ${JSON.stringify(body)}\n\ndata: [DONE]\n\n`);
    return;
  }
  sendJson(res, status, body, headers);
}

export const fail = (code: ErrorCode, message: string, param: string | null = null): LlmgwError => new LlmgwError(code, message, { param });

export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) {
      reject(fail('LLMGW_ERR_REQUEST_TOO_LARGE', `request body of ${declared} bytes exceeds the limit of ${limit} bytes`));
      req.resume();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > limit) {
        reject(fail('LLMGW_ERR_REQUEST_TOO_LARGE', `request body exceeds the limit of ${limit} bytes`));
        req.removeAllListeners('data');
        req.resume();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
    req.on('error', reject);
    // A client gone mid-body must not leave the promise (and its buffers) pending.
    req.on('close', () => {
      if (!req.complete) reject(fail('LLMGW_ERR_REQUEST_INVALID', 'client closed the connection before the body was complete'));
    });
  });
}

export function parseJson<S extends z.ZodType>(raw: Buffer, schema: S): z.output<S> {
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch (e) {
    throw fail('LLMGW_ERR_REQUEST_INVALID_JSON', `request body is not valid JSON: ${(e as Error).message}`);
  }
  const r = schema.safeParse(body);
  if (!r.success) {
    const { message, param } = describeIssues(r.error);
    throw fail('LLMGW_ERR_REQUEST_INVALID', message, param);
  }
  return r.data;
}

export function usageOf(u: SeqUsage): Usage {
  return {
    prompt_tokens: u.promptTokens,
    completion_tokens: u.completionTokens,
    total_tokens: u.promptTokens + u.completionTokens,
    prompt_tokens_details: { cached_tokens: u.cachedTokens },
  };
}

export function responsesUsageOf(u: SeqUsage): ResponsesUsage {
  return {
    input_tokens: u.promptTokens,
    input_tokens_details: { cached_tokens: u.cachedTokens },
    output_tokens: u.completionTokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: u.promptTokens + u.completionTokens,
  };
}

/** Responses API input (a string, or message items with string or input_text parts) as chat messages. */
export function responsesMessages(body: ResponsesRequest): ChatMessage[] {
  const out: ChatMessage[] = [];
  if (body.instructions) out.push({ role: 'system', content: body.instructions });
  const input = body.input;
  if (typeof input === 'string') out.push({ role: 'user', content: input });
  else if (Array.isArray(input)) {
    for (const item of input as Array<Record<string, unknown>>) {
      if (item.type !== undefined && item.type !== 'message') continue;
      const role = typeof item.role === 'string' ? item.role : 'user';
      const c = item.content;
      const content =
        typeof c === 'string' ? c : Array.isArray(c) ? c.map((p: { text?: unknown }) => (typeof p?.text === 'string' ? p.text : '')).join('') : '';
      out.push({ role: role as ChatMessage['role'], content });
    }
  }
  return out;
}
