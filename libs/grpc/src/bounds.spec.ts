import * as grpc from '@grpc/grpc-js';
import { LlmgwError } from '@llmgw/errors';
import { z } from 'zod';
import { assertBounded, boundedSchema, findOversized } from './bounds';
import { toGrpcError } from './errors';
import { MAX_STATUS_MESSAGE_CHARS, truncateForStatus } from './status-text';

describe('truncateForStatus', () => {
  it('keeps short text, bounds long text and says how much it cut, never splitting a surrogate pair', () => {
    expect(truncateForStatus('node x is not in the inventory')).toBe('node x is not in the inventory');
    const long = truncateForStatus(`node ${'a'.repeat(100_000)} is not in the inventory`);
    expect(long.length).toBeLessThan(MAX_STATUS_MESSAGE_CHARS + 40);
    expect(long).toMatch(/… \(\d+ more characters\)$/);
    const emoji = truncateForStatus('😀'.repeat(10), 5);
    expect(emoji.startsWith('😀😀')).toBe(true);
    expect(emoji).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
  });

  it('is applied to every status a server sends', () => {
    const e = toGrpcError(new LlmgwError('LLMGW_ERR_NOT_FOUND', `node ${'x'.repeat(100_000)} is not in the inventory`));
    expect(e.code).toBe(grpc.status.NOT_FOUND);
    expect(e.details.length).toBeLessThan(MAX_STATUS_MESSAGE_CHARS + 40);
    expect(e.message).toBe(e.details);
  });
});

describe('findOversized / boundedSchema', () => {
  const spec = { maxString: 10, maxRepeated: 3, fields: { shards: { repeated: 5 }, text: { string: 100 } } };

  it('names the first string, repeated field, map or bytes over its bound, in proto names, without the value', () => {
    expect(findOversized({ nodeId: 'a'.repeat(11) }, spec)).toEqual({ field: 'node_id', detail: '11 characters; at most 10 allowed' });
    expect(findOversized({ node: { hcas: ['a', 'b', 'c', 'd'] } }, spec)).toEqual({ field: 'node.hcas', detail: '4 entries; at most 3 allowed' });
    expect(findOversized({ hb: { shards: [{}, {}, {}, {}, {}] } }, spec)).toBeUndefined();
    expect(findOversized({ hb: { shards: Array(6).fill({}) } }, spec)?.field).toBe('hb.shards');
    expect(findOversized({ hb: { shards: [{ shardId: 'x'.repeat(11) }] } }, spec)?.field).toBe('hb.shards[0].shard_id');
    expect(findOversized({ lines: [{ text: 'y'.repeat(100) }] }, spec)).toBeUndefined();
    expect(findOversized({ labels: Object.fromEntries(Array.from({ length: 64 }, (_, i) => [`k${i}`, 'v'])) }, spec)).toBeUndefined();
    expect(findOversized({ labels: Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`k${i}`, 'v'])) }, spec)).toEqual({
      field: 'labels',
      detail: '65 entries; at most 64 allowed',
    });
    expect(findOversized({ raw: Buffer.alloc(11) }, spec)).toEqual({ field: 'raw', detail: '11 bytes; at most 10 allowed' });
    expect(findOversized({ ok: 'short', n: 5, b: true, none: null }, spec)).toBeUndefined();
  });

  it('assertBounded throws INVALID_ARGUMENT; boundedSchema fails before the inner schema with the field as its path', () => {
    expect(() => assertBounded({ reason: 'r'.repeat(5000) })).toThrow(
      expect.objectContaining({ code: 'LLMGW_ERR_INVALID_ARGUMENT', message: 'reason: 5000 characters; at most 4096 allowed' }),
    );
    const inner = z.object({ nodeId: z.string().min(1) }).passthrough();
    const s = boundedSchema(inner, spec);
    const bad = s.safeParse({ nodeId: 'n'.repeat(50) });
    expect(bad.success).toBe(false);
    expect(bad.error!.issues).toEqual([expect.objectContaining({ path: ['node_id'], message: '50 characters; at most 10 allowed' })]);
    expect(s.safeParse({ nodeId: '' }).success).toBe(false);
    expect(s.safeParse({ nodeId: 'n1', extra: 1 })).toEqual({ success: true, data: { nodeId: 'n1', extra: 1 } });
  });
});
