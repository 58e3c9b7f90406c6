import { LlmgwError } from '@llmgw/errors';
import { AccountingAuditSink, type AuditRecord } from './audit';

const quiet = { info: () => undefined, warn: () => undefined } as never;
const ev = (n: number): AuditRecord => ({ actor: 'alice', action: 'node.cordon', targetType: 'node', targetId: `n${n}`, details: { reason: 'r' } });

describe('AccountingAuditSink', () => {
  it('appends in order, keeps events while accounting is away and delivers them once it is back', async () => {
    const got: string[] = [];
    let down = 2;
    const sink = new AccountingAuditSink({
      client: {
        appendAudit: async (req, actor) => {
          if (down-- > 0) throw new LlmgwError('LLMGW_ERR_UNAVAILABLE', 'accounting away');
          got.push(`${actor}:${req.action}:${req.targetId}:${req.details}`);
          return {} as never;
        },
      },
      log: quiet,
      retryBaseMs: 1,
      retryMaxMs: 2,
    });
    sink.record(ev(1));
    sink.record(ev(2));
    expect(sink.pending()).toBe(2);
    await sink.flushed();
    expect(got).toEqual(['alice:node.cordon:n1:{"reason":"r"}', 'alice:node.cordon:n2:{"reason":"r"}']);
    expect(sink.pending()).toBe(0);
    sink.close();
  });

  it('drops an event accounting refuses as invalid instead of blocking the queue, and bounds the queue', async () => {
    const got: string[] = [];
    const warned: string[] = [];
    const sink = new AccountingAuditSink({
      client: {
        appendAudit: async (req) => {
          if (req.targetId === 'n1') throw new LlmgwError('LLMGW_ERR_INVALID_ARGUMENT', 'bad');
          got.push(req.targetId ?? '');
          return {} as never;
        },
      },
      log: { info: () => undefined, warn: (_o: object, m?: string) => void warned.push(m ?? '') } as never,
      maxQueue: 2,
    });
    sink.record(ev(1));
    sink.record(ev(2));
    sink.record(ev(3));
    sink.record(ev(4)); // n1 is in flight; the queue holds 2 more: the oldest waiting one goes
    await sink.flushed();
    expect(got).toEqual(['n3', 'n4']);
    expect(warned.some((m) => /refused an event/.test(m))).toBe(true);
    expect(warned.some((m) => /queue full/.test(m))).toBe(true);
  });
});
