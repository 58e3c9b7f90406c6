import type { ZodType } from 'zod';
import { ChatCompletionRequest, CompletionRequest, EmbeddingRequest, PassthroughRequest, ResponsesRequest } from '@llmgw/contracts';

/** The APIs the router serves through the stages. */
export type ApiKind = 'chat' | 'completions' | 'embeddings' | 'responses' | 'rerank' | 'score' | 'tokenize' | 'detokenize';

export interface ApiSpec {
  path: string;
  schema: ZodType;
  /** `"stream": true` gets an SSE answer. */
  streams: boolean;
  /** Streams carry usage only when asked (`stream_options.include_usage`), so the router may ask for it. */
  injectUsage: boolean;
  /** An engine route outside OpenAI's API, served only when listed in `passthrough_routes`. */
  passthrough: boolean;
}

const engineRoute = { streams: false, injectUsage: false, passthrough: true, schema: PassthroughRequest };

export const API: Record<ApiKind, ApiSpec> = {
  chat: { path: '/v1/chat/completions', schema: ChatCompletionRequest, streams: true, injectUsage: true, passthrough: false },
  completions: { path: '/v1/completions', schema: CompletionRequest, streams: true, injectUsage: true, passthrough: false },
  embeddings: { path: '/v1/embeddings', schema: EmbeddingRequest, streams: false, injectUsage: false, passthrough: false },
  // The Responses API's final event (`response.completed`) always carries usage.
  responses: { path: '/v1/responses', schema: ResponsesRequest, streams: true, injectUsage: false, passthrough: false },
  rerank: { path: '/v1/rerank', ...engineRoute },
  score: { path: '/v1/score', ...engineRoute },
  tokenize: { path: '/tokenize', ...engineRoute },
  detokenize: { path: '/detokenize', ...engineRoute },
};

/** The API kinds this config serves: OpenAI's always, engine routes when listed in `passthrough_routes`. */
export function enabledKinds(passthroughRoutes: readonly string[]): ApiKind[] {
  return (Object.keys(API) as ApiKind[]).filter((k) => !API[k].passthrough || passthroughRoutes.includes(API[k].path));
}
