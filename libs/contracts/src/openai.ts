/**
 * The OpenAI-compatible API surface llmgw speaks (router) and simulates
 * (sim-engine): zod schemas for the request bodies and TypeScript types for the
 * responses and stream chunks, matching the captures in
 * fixtures/openai.
 *
 * Request schemas are deliberately permissive: they check the fields llmgw
 * itself reads (model, messages/prompt/input, stream, token limits) and pass
 * every other field through untouched (`z.looseObject`), because engines
 * accept many vendor extensions and a gateway must not strip them.
 */
import { z } from 'zod';

const tokenLimit = z.number().int().min(0).nullish();

/** A content part inside a chat message: text, image, audio, … (only `text` is read). */
export const ChatContentPart = z.looseObject({ type: z.string(), text: z.string().optional() });

/** The message roles OpenAI accepts (`function` is its deprecated predecessor of `tool`). */
export const CHAT_ROLES = ['system', 'developer', 'user', 'assistant', 'tool', 'function'] as const;

export const ChatMessage = z.looseObject({
  role: z.enum(CHAT_ROLES, { error: (i) => `role must be one of ${CHAT_ROLES.join(', ')} (got ${JSON.stringify(i.input)})` }),
  content: z.union([z.string(), z.array(ChatContentPart)]).nullish(),
  name: z.string().optional(),
  tool_calls: z.array(z.looseObject({})).optional(),
  tool_call_id: z.string().optional(),
});
export type ChatMessage = z.infer<typeof ChatMessage>;

export const StreamOptions = z.looseObject({ include_usage: z.boolean().nullish() });

/** Sampling parameters as OpenAI bounds them. */
const temperature = z.number().min(0, 'temperature must be between 0 and 2').max(2, 'temperature must be between 0 and 2').nullish();
const topP = z.number().min(0, 'top_p must be between 0 and 1').max(1, 'top_p must be between 0 and 1').nullish();
/** OpenAI accepts 1–128 choices. */
const choices = z.number().int().min(1, 'n must be at least 1').max(128, 'n must be at most 128').nullish();

/** A function reference `{name, …}` as tools and tool_choice carry it. */
const FunctionRef = z.looseObject({ name: z.string().min(1, 'a function needs a name') });

/** A chat tool: `{type: "function", function: {name, description?, parameters?, strict?}}`; other types pass through. */
export const ChatTool = z
  .looseObject({
    type: z.string().min(1),
    function: FunctionRef.extend({ description: z.string().optional(), parameters: z.record(z.string(), z.unknown()).optional() }).optional(),
  })
  .refine((t) => t.type !== 'function' || t.function !== undefined, { message: 'a function tool needs `function: {name, …}`', path: ['function'] });

/** `none` | `auto` | `required` | `{type: "function", function: {name}}` (or another typed choice). */
export const ChatToolChoice = z.union(
  [
    z.enum(['none', 'auto', 'required']),
    z
      .looseObject({ type: z.string().min(1), function: FunctionRef.optional() })
      .refine((t) => t.type !== 'function' || t.function !== undefined, { message: 'a function tool_choice needs `function: {name}`', path: ['function'] }),
  ],
  { error: 'tool_choice must be "none", "auto", "required" or {"type": "function", "function": {"name": …}}' },
);

export const ChatCompletionRequest = z.looseObject({
  model: z.string().min(1),
  messages: z.array(ChatMessage).min(1, 'messages must contain at least one message'),
  stream: z.boolean().nullish(),
  stream_options: StreamOptions.nullish(),
  max_tokens: tokenLimit,
  max_completion_tokens: tokenLimit,
  n: choices,
  stop: z.union([z.string(), z.array(z.string())]).nullish(),
  seed: z.number().int().nullish(),
  temperature,
  top_p: topP,
  tools: z.array(ChatTool).nullish(),
  tool_choice: ChatToolChoice.nullish(),
  user: z.string().nullish(),
});
export type ChatCompletionRequest = z.infer<typeof ChatCompletionRequest>;

/** A prompt: a string, strings, token ids or arrays of token ids. */
export const CompletionPrompt = z.union([z.string(), z.array(z.string()), z.array(z.number().int()), z.array(z.array(z.number().int()))]);

export const CompletionRequest = z.looseObject({
  model: z.string().min(1),
  prompt: CompletionPrompt,
  stream: z.boolean().nullish(),
  stream_options: StreamOptions.nullish(),
  max_tokens: tokenLimit,
  n: choices,
  temperature,
  top_p: topP,
  stop: z.union([z.string(), z.array(z.string())]).nullish(),
  seed: z.number().int().nullish(),
  echo: z.boolean().nullish(),
  user: z.string().nullish(),
});
export type CompletionRequest = z.infer<typeof CompletionRequest>;

export const EmbeddingRequest = z.looseObject({
  model: z.string().min(1),
  input: CompletionPrompt,
  encoding_format: z.enum(['float', 'base64']).nullish(),
  dimensions: z.number().int().min(1).nullish(),
  user: z.string().nullish(),
});
export type EmbeddingRequest = z.infer<typeof EmbeddingRequest>;

/**
 * The Responses API (`POST /v1/responses`), as vLLM serves it: `input` is a
 * string or a list of input items (messages, function-call outputs, …; only
 * their being objects is checked). `tools` there are flat
 * (`{type: "function", name, parameters}`).
 */
export const ResponsesRequest = z.looseObject({
  model: z.string().min(1),
  input: z.union([z.string(), z.array(z.looseObject({}))]).optional(),
  instructions: z.string().nullish(),
  stream: z.boolean().nullish(),
  max_output_tokens: z.number().int().min(1).nullish(),
  temperature,
  top_p: topP,
  tools: z.array(z.looseObject({ type: z.string() })).nullish(),
  tool_choice: z.union([z.enum(['none', 'auto', 'required']), z.looseObject({ type: z.string() })]).nullish(),
  user: z.string().nullish(),
});
export type ResponsesRequest = z.infer<typeof ResponsesRequest>;

/** An engine route passed through untouched (rerank, score, tokenize, detokenize): only `model` is read. */
export const PassthroughRequest = z.looseObject({ model: z.string().min(1) });

// ---- responses --------------------------------------------------------------

export interface PromptTokensDetails {
  cached_tokens: number;
  audio_tokens?: number;
}

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details?: PromptTokensDetails | null;
  completion_tokens_details?: Record<string, number> | null;
}

export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'function_call' | 'abort';

export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: Array<{
    index: number;
    message: { role: 'assistant'; content: string | null; refusal?: string | null; tool_calls?: unknown[] };
    logprobs?: unknown;
    finish_reason: FinishReason | null;
  }>;
  usage?: Usage;
  system_fingerprint?: string | null;
}

/** One SSE `data:` event of a chat stream. The usage-only chunk has `choices: []`. */
export interface ChatCompletionChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: Array<{
    index: number;
    delta: { role?: 'assistant'; content?: string | null; refusal?: string | null; tool_calls?: unknown[] };
    logprobs?: unknown;
    finish_reason: FinishReason | null;
  }>;
  usage?: Usage | null;
  system_fingerprint?: string | null;
}

export interface Completion {
  id: string;
  object: 'text_completion';
  created: number;
  model: string;
  choices: Array<{ index: number; text: string; logprobs: unknown; finish_reason: FinishReason | null }>;
  usage?: Usage | null;
}

/** Completions stream events share the non-streaming shape (`object: "text_completion"`). */
export type CompletionChunk = Completion;

export interface Embedding {
  object: 'embedding';
  index: number;
  /** Floats, or base64 of little-endian float32 when `encoding_format` is base64. */
  embedding: number[] | string;
}

export interface EmbeddingResponse {
  object: 'list';
  data: Embedding[];
  model: string;
  usage: { prompt_tokens: number; total_tokens: number };
}

/** Usage as the Responses API reports it (in the response object and in `response.completed`). */
export interface ResponsesUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

/** The message item of a Responses API answer. */
export interface ResponseOutputMessage {
  type: 'message';
  id: string;
  status: 'in_progress' | 'completed' | 'incomplete';
  role: 'assistant';
  content: Array<{ type: 'output_text'; text: string; annotations: unknown[]; logprobs?: unknown[] }>;
}

/** A Responses API answer (`object: "response"`); the same object rides in the stream's lifecycle events. */
export interface ResponseObject {
  id: string;
  object: 'response';
  created_at: number;
  status: 'in_progress' | 'completed' | 'incomplete' | 'failed' | 'cancelled';
  model: string;
  output: ResponseOutputMessage[];
  incomplete_details: { reason: string } | null;
  usage: ResponsesUsage | null;
  [extra: string]: unknown;
}

export interface ModelCard {
  id: string;
  object: 'model';
  created: number;
  owned_by: string;
  root?: string;
  parent?: string | null;
  max_model_len?: number;
  permission?: unknown[];
}

export interface ModelList {
  object: 'list';
  data: ModelCard[];
}

/** `stream_options.include_usage`, however the client spelled it. */
export function wantsStreamUsage(req: { stream_options?: { include_usage?: boolean | null } | null }): boolean {
  return req.stream_options?.include_usage === true;
}

/** The effective completion-token limit of a chat request (`max_completion_tokens` wins). */
export function chatMaxTokens(req: Pick<ChatCompletionRequest, 'max_tokens' | 'max_completion_tokens'>): number | undefined {
  return req.max_completion_tokens ?? req.max_tokens ?? undefined;
}

/** One-line description of a zod failure, for an OpenAI error message, plus the offending param. */
export function describeIssues(error: z.ZodError): { message: string; param: string | null } {
  const first = error.issues[0];
  const param = first && first.path.length ? first.path.join('.') : null;
  const message = error.issues
    .slice(0, 5)
    .map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message))
    .join('; ');
  return { message: message || 'invalid request', param };
}
