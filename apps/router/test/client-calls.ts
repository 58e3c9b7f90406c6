import { waitUntil } from '@llmgw/testing';
import type { RecordingLedger } from './tenancy-with-keys';

/**
 * A client of one router for the providers' specs: `chat` sends a short chat request with the
 * client key (extra body fields, an optional request id) and keeps every header and body it got
 * in `seen` (the specs check no secret is among them); `recordOf` waits for a request's ledger record.
 */
export function clientCalls(url: () => string, clientKey: string, ledger: RecordingLedger, seen: string[]) {
  async function chat(model: string, extra: Record<string, unknown> = {}, reqId?: string): Promise<{ status: number; headers: Headers; text: string }> {
    const r = await fetch(`${url()}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${clientKey}`, ...(reqId ? { 'x-request-id': reqId } : {}) },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hello there' }], max_tokens: 5, ...extra }),
    });
    const text = await r.text();
    seen.push(JSON.stringify([...r.headers]), text);
    return { status: r.status, headers: r.headers, text };
  }
  async function recordOf(reqId: string) {
    await waitUntil(() => ledger.records.some((r) => r.requestId === reqId), `ledger record ${reqId}`, { timeoutMs: 10_000, everyMs: 25 });
    return ledger.records.find((r) => r.requestId === reqId)!;
  }
  return { chat, recordOf };
}
