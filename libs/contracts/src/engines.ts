/**
 * The engine vocabulary, defined once. A *dialect* is what an endpoint speaks
 * on /metrics and its API (what routers, admission and the metric mappings
 * read); a *kind* is what a node-agent launches and a catalog profile names:
 * every dialect, and llmgw's simulated engine.
 */
export const ENGINE_DIALECTS = ['vllm', 'sglang', 'llamacpp'] as const;
export type EngineDialect = (typeof ENGINE_DIALECTS)[number];

export const ENGINE_KINDS = [...ENGINE_DIALECTS, 'sim'] as const;
export type EngineKind = (typeof ENGINE_KINDS)[number];

export const isEngineDialect = (s: string): s is EngineDialect => (ENGINE_DIALECTS as readonly string[]).includes(s);
export const isEngineKind = (s: string): s is EngineKind => (ENGINE_KINDS as readonly string[]).includes(s);

/** The dialect a launched engine speaks by default: sim-engine speaks vLLM's (docs/sim-engine.md). */
export const DIALECT_OF_KIND: Readonly<Record<EngineKind, EngineDialect>> = { vllm: 'vllm', sglang: 'sglang', llamacpp: 'llamacpp', sim: 'vllm' };
