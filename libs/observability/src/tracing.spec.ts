import { inSpan } from './tracing';

describe('inSpan without a tracing SDK', () => {
  it('runs the function with a non-recording span and resolves with its value', async () => {
    await expect(inSpan('t.sync', {}, (span) => (span.isRecording() ? 'recording' : 'plain'))).resolves.toBe('plain');
    await expect(inSpan('t.async', {}, async () => 42)).resolves.toBe(42);
  });

  it('turns a synchronous throw into a rejection, like an async function', async () => {
    const p = inSpan('t.throw', {}, () => {
      throw new Error('boom');
    });
    expect(p).toBeInstanceOf(Promise);
    await expect(p).rejects.toThrow('boom');
    await expect(inSpan('t.reject', {}, async () => Promise.reject(new Error('later')))).rejects.toThrow('later');
  });
});
