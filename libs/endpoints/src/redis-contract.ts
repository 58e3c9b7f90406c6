import { parseJson, ENGINE_DIALECTS } from '@llmgw/contracts';
import { z } from 'zod';
import { normaliseEndpoint } from './static-source';
import type { EndpointInfo } from './types';

/**
 * The published endpoint set in Redis (docs/wire-contracts.md, "Redis
 * contracts"), version 1:
 *
 * - `<prefix>endpoints` — HASH; field = endpoint id, value = one endpoint
 *   record (JSON, below). Written by the placement-scheduler
 *   (`RedisEndpointWriter`); read by routers and admission
 *   (`RedisEndpointSource`).
 * - `<prefix>endpoints:changed` — pub/sub channel; the writer publishes the
 *   new version number (decimal) after every change. Readers reload on it.
 * - `<prefix>endpoints:version` — INCR'd with every change.
 */
export function endpointKeys(prefix: string) {
  return { hash: `${prefix}endpoints`, channel: `${prefix}endpoints:changed`, version: `${prefix}endpoints:version` };
}

export const ENDPOINT_RECORD_VERSION = 1;

/** Endpoint record v1: snake_case on the wire; absent fields take the static-endpoint defaults. Records without `v` are v1. */
export const endpointRecordSchema = z.object({
  v: z.literal(ENDPOINT_RECORD_VERSION).optional(),
  id: z.string().optional(),
  url: z.string().min(1),
  model: z.string().min(1),
  engine: z.enum(ENGINE_DIALECTS).optional(),
  pool: z.string().min(1).optional(),
  priority: z.number().optional(),
  weight: z.number().positive().optional(),
  draining: z.boolean().optional(),
  scheduling_policy: z.enum(['fcfs', 'priority']).optional(),
  /** The engine's batch slots (`--max-num-seqs`); admission's confirmed capacity. Optional within v1. */
  max_num_seqs: z.number().int().min(1).optional(),
  /** Admission's target waiting per replica for this replica (docs/capacity.md "Applying a profile"). Optional within v1. */
  target_waiting: z.number().positive().optional(),
  kv_events: z.object({ endpoint: z.string().min(1), replay_endpoint: z.string().min(1).optional() }).optional(),
  /** `replica-key`: the engine requires the replica's engine secret, which readers derive; never the secret itself. Optional within v1. */
  auth: z.enum(['replica-key']).optional(),
});

/** Payload of `<prefix>endpoints:changed`: the version number after the change. */
export const endpointsChangedSchema = z.string().regex(/^\d+$/, 'the endpoint set version (a decimal number)');

/** The record the writer stores for `e`. */
export function encodeEndpoint(e: EndpointInfo): string {
  return JSON.stringify({
    v: ENDPOINT_RECORD_VERSION,
    id: e.id,
    url: e.url,
    model: e.model,
    engine: e.engine,
    pool: e.pool,
    priority: e.priority,
    weight: e.weight,
    draining: e.draining,
    ...(e.schedulingPolicy ? { scheduling_policy: e.schedulingPolicy } : {}),
    ...(e.maxNumSeqs !== undefined ? { max_num_seqs: e.maxNumSeqs } : {}),
    ...(e.targetWaiting !== undefined ? { target_waiting: e.targetWaiting } : {}),
    ...(e.auth ? { auth: e.auth } : {}),
    ...(e.kvEvents
      ? { kv_events: { endpoint: e.kvEvents.endpoint, ...(e.kvEvents.replayEndpoint ? { replay_endpoint: e.kvEvents.replayEndpoint } : {}) } }
      : {}),
  });
}

/** One hash value read back as an endpoint (the hash field is its id), or why it is not one. */
export function decodeEndpointRecord(id: string, json: string): { ok: true; value: EndpointInfo } | { ok: false; error: string } {
  const r = parseJson(endpointRecordSchema, json);
  if (!r.ok) return r;
  const { v: _v, id: _id, ...rec } = r.value;
  return { ok: true, value: normaliseEndpoint({ ...rec, id }) };
}

/** One hash value read back as an endpoint; undefined when it is not a valid endpoint record v1. */
export function decodeEndpoint(id: string, json: string): EndpointInfo | undefined {
  const r = decodeEndpointRecord(id, json);
  return r.ok ? r.value : undefined;
}
