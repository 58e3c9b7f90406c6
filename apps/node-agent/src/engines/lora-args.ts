import type { agentV1 } from '@llmgw/contracts';

/**
 * How each engine is given a model's LoRA adapters (docs/node-agent.md,
 * "Adapters"). The paths are the node's: a fetched adapter's is its cache
 * directory (supervisor/weights-step.ts), a catalog `path` is used as is.
 */

const adaptersOf = (spec: agentV1.ShardSpec__Output) => (spec.adapters ?? []).filter((a) => a.name && a.path);

/**
 * vLLM dialect (vLLM and the sim-engine): `--enable-lora`, `--max-loras`
 * (the catalog's max_loaded_adapters) and every adapter registered with
 * `--lora-modules name=path`; the engine loads one into a slot when a request
 * names it. Nothing when the model has no adapters.
 */
export function vllmLoraArgs(spec: agentV1.ShardSpec__Output): string[] {
  const adapters = adaptersOf(spec);
  if (!adapters.length) return [];
  return ['--enable-lora', ...(spec.maxLoras ? ['--max-loras', String(spec.maxLoras)] : []), '--lora-modules', ...adapters.map((a) => `${a.name}=${a.path}`)];
}

/**
 * llama.cpp: every adapter loaded at start (`--lora path`, in catalog order:
 * adapter id N is the N-th) and applied to no request until the request names
 * it (`--lora-init-without-apply`); a request then carries
 * `lora: [{ id, scale }]` with the catalog's scale.
 */
export function llamaCppLoraArgs(spec: agentV1.ShardSpec__Output): string[] {
  const adapters = adaptersOf(spec);
  if (!adapters.length) return [];
  return [...adapters.flatMap((a) => ['--lora', a.path]), '--lora-init-without-apply'];
}

/**
 * SGLang: every adapter registered at start (`--lora-paths name=path …`,
 * which also turns LoRA on) and moved into one of `--max-loras-per-batch`
 * GPU slots (the catalog's max_loaded_adapters; SGLang's default is 8) when a
 * request names it in `lora_path`, least recently used out first.
 */
export function sglangLoraArgs(spec: agentV1.ShardSpec__Output): string[] {
  const adapters = adaptersOf(spec);
  if (!adapters.length) return [];
  return ['--lora-paths', ...adapters.map((a) => `${a.name}=${a.path}`), ...(spec.maxLoras ? ['--max-loras-per-batch', String(spec.maxLoras)] : [])];
}
